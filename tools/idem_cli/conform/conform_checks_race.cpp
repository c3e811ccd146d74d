// Checks 4 and 5 of `idem-cli conform`: a burst of requests with one key and one body, all
// started before any is answered; how many executions it made, and how the answers given while
// the first one ran ("in progress") are read.
#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <string_view>

#include "idem_cli/conform/conform_answer.hpp"
#include "idem_cli/conform/conform_check_support.hpp"
#include "idem_cli/conform/conform_checks.hpp"

namespace idem::cli {
namespace {

// "201x1, 409x49" (no answer counted as "none").
std::string status_counts(const std::vector<transport_result>& answers) {
  std::map<int, std::size_t> by_status;
  for (const auto& a : answers)
    ++by_status[answered(a) ? a.response.status : 0];
  std::string out;
  for (const auto& [status, n] : by_status) {
    if (!out.empty()) out += ", ";
    out +=
        (status == 0 ? std::string("no answer") : std::to_string(status)) + "x" + std::to_string(n);
  }
  return out;
}

bool retry_same_key(const answer_meaning& m) {
  return m.cls == attempt_class::in_progress || m.cls == attempt_class::unknown ||
         m.cls == attempt_class::not_processed;
}

// The first 2xx of the burst: what a duplicate that gives the stored answer back gives.
const transport_result* first_success(const std::vector<transport_result>& burst) {
  const auto it = std::ranges::find_if(burst, [](const auto& a) { return succeeded(a); });
  return it == burst.end() ? nullptr : &*it;
}

// The burst read answer by answer: the resources its answers name, and how many of each kind.
struct burst_reading {
  std::set<std::string> ids;
  std::map<duplicate_kind, std::size_t> kinds;
  std::size_t replies = 0;

  [[nodiscard]] std::size_t of(duplicate_kind k) const {
    const auto it = kinds.find(k);
    return it == kinds.end() ? 0 : it->second;
  }
};

burst_reading read_burst(const std::vector<transport_result>& burst,
                         const std::string& id_pointer) {
  burst_reading out;
  const transport_result* first = first_success(burst);
  for (const auto& a : burst) {
    out.replies += answered(a) ? 1 : 0;
    const auto kind = classify_duplicate(a, first, id_pointer);
    ++out.kinds[kind];
    if (kind == duplicate_kind::success || kind == duplicate_kind::stored_answer) {
      if (auto id = named_resource(a, id_pointer)) out.ids.insert(*id);
    }
  }
  return out;
}

// "; 3 business conflicts; 2 stored answers with another status", as far as any.
std::string kind_counts(const burst_reading& b) {
  std::string out;
  const auto add = [&](duplicate_kind k, std::string_view words) {
    if (b.of(k) > 0) out += "; " + std::to_string(b.of(k)) + " " + std::string(words);
  };
  add(duplicate_kind::business_conflict, "business conflicts");
  add(duplicate_kind::stored_answer, "stored answers with another status");
  add(duplicate_kind::ambiguous, "bare 409/425/5xx");
  return out;
}

// The race's verdict from what the backend holds (the lookup's records, the resources the
// answers name) first, then from what the answers say.
void judge_race(check_result& row, const burst_reading& b,
                const std::optional<std::size_t>& records) {
  const std::size_t held = std::max(b.ids.size(), records.value_or(std::size_t{0}));
  const std::size_t conflicts = b.of(duplicate_kind::business_conflict);
  const std::string claim =
      ": a double tap, or a retry that races its own first attempt, makes two orders or "
      "charges. Claim the key with an atomic insert (a unique constraint) before executing, "
      "never check-then-insert";
  const std::string atomically = "no profile helps: the backend must claim keys atomically";
  if (held > 1) {
    const std::size_t executions = std::max(b.ids.size() + conflicts, held);
    row.judge(verdict::fail, certainty::proven,
              std::to_string(executions) + " executions for one key (the backend holds " +
                  std::to_string(held) + " records or resources)" + claim);
    row.setting = atomically;
  } else if (conflicts > 0) {
    row.judge(verdict::fail, certainty::observed,
              "at least " + std::to_string(std::max(held, std::size_t{1}) + conflicts) +
                  " executions for one key: " + std::to_string(conflicts) +
                  " duplicates ran and only the business's unique constraint refused them (the "
                  "backend keeps one record, but what runs before the insert, a charge or an "
                  "e-mail, ran each time)" +
                  claim);
    row.setting = atomically;
  } else if (b.of(duplicate_kind::success) + b.of(duplicate_kind::stored_answer) == 0) {
    row.judge(verdict::error, certainty::inconclusive,
              "no request of the burst succeeded: nothing to count");
  } else if (b.of(duplicate_kind::ambiguous) > 0) {
    row.judge(verdict::warn, certainty::inconclusive,
              std::to_string(b.of(duplicate_kind::ambiguous)) +
                  " answers were a bare 409/425 or a 5xx: \"in progress\" and a duplicate that "
                  "ran and was refused by a unique constraint look alike, and the lookup counts "
                  "records, not executions. Give \"in progress\" a problem type (or "
                  "Retry-After) and the constraint's refusal words of its own");
  } else if (!records && b.ids.empty()) {
    row.judge(verdict::warn, certainty::inconclusive,
              "the answers name no resource (--id-pointer) and there is no lookup: the "
              "executions could not be counted");
  } else {
    const bool counted = records == std::size_t{1};  // a lookup that finds nothing proves nothing
    row.judge(verdict::pass, counted ? certainty::proven : certainty::observed,
              counted ? "one execution: the lookup finds one record, and every other request "
                        "got the stored answer or \"in progress\""
                      : "one execution as far as the answers show (one resource id; every "
                        "other request got the stored answer or \"in progress\"); a lookup "
                        "would prove it");
  }
}

}  // namespace

check_result check_race(conform_context& c) {
  check_result row;
  row.sent = std::to_string(c.race) + " x " + target_text(c) + " at once, one key, one body";
  row.setting = "any profile";
  const auto b = new_body(c, "race");
  const auto key = new_key();
  std::vector<http_request> reqs;
  for (std::size_t i = 0; i < c.race; ++i)
    reqs.push_back(post_request(c.endpoint, b.body, key));
  c.burst = c.probe.send_all(std::move(reqs));

  const auto reading = read_burst(c.burst, c.endpoint.id_pointer);
  if (reading.replies == 0) return no_answer(std::move(row), c.burst.front(), "every request");
  const auto records = lookup_count(c, b);
  row.came_back = status_counts(c.burst) + "; " + std::to_string(reading.ids.size()) +
                  (reading.ids.size() == 1 ? " resource id" : " resource ids") +
                  kind_counts(reading) + lookup_text(records, c);
  judge_race(row, reading, records);
  return row;
}

check_result check_in_progress(conform_context& c) {
  check_result row;
  row.sent =
      "(the answers of the racing burst that are neither 2xx, nor the stored answer, nor "
      "business conflicts)";
  std::vector<transport_result> busy;
  std::map<std::string, std::size_t> kinds;
  bool executed_again = false;
  bool unsure = false;  // some answer may as well be a refused execution
  const transport_result* first = first_success(c.burst);
  for (const auto& a : c.burst) {
    const auto kind = classify_duplicate(a, first, c.endpoint.id_pointer);
    executed_again = executed_again || kind == duplicate_kind::business_conflict;
    if (kind != duplicate_kind::in_progress && kind != duplicate_kind::ambiguous) continue;
    unsure = unsure || kind == duplicate_kind::ambiguous;
    busy.push_back(a);
    ++kinds[describe(a, c.endpoint.id_pointer)];
  }
  if (busy.empty()) {
    row.came_back = "not observed: no duplicate was answered \"in progress\"";
    row.judge(verdict::skip, certainty::inconclusive,
              executed_again ? "the duplicates were executed instead of being held (check 4)"
                             : "every duplicate got the stored answer: the first execution ended "
                               "before they were read, so nothing was left for idem to misread; "
                               "a slower endpoint (--path) shows it, and idem-mock-server does "
                               "under --faults preset:in-progress");
    row.setting = "any profile";
    return row;
  }
  for (const auto& [kind, n] : kinds) {
    if (!row.came_back.empty()) row.came_back += "; ";
    row.came_back += kind + " (x" + std::to_string(n) + ")";
  }
  row.profiles_ok = profiles_where(busy, retry_same_key);
  const auto names = join_words(*row.profiles_ok);
  bool all_retry = true;
  bool all_retry_after = true;
  std::set<std::string> classes;
  for (const auto& a : busy) {
    const auto m = meaning_under(c.profile, a);
    all_retry = all_retry && retry_same_key(m);
    all_retry_after = all_retry_after && a.response.header("Retry-After") != nullptr;
    classes.insert(std::string(to_string(m.cls)));
  }
  const std::string read = std::string(c.profile.name()) + " reads it as " +
                           join_words({classes.begin(), classes.end()});
  if (!all_retry) {
    row.judge(
        verdict::fail,
        read + ": an order still being created is reported rejected, and the user orders again");
    row.setting = names.empty() ? "a classifier returning in_progress for it (docs/PROFILES.md)"
                                : "use " + names;
    return row;
  }
  row.judge(verdict::pass, unsure ? certainty::inconclusive : certainty::observed,
            read + ": idem waits and sends the same key again");
  if (unsure) row.why += " (a bare 409 may also be a refused execution: check 4)";
  row.why += all_retry_after ? "; Retry-After says how long"
                             : "; no Retry-After: idem waits by its own backoff";
  row.setting = std::string(c.profile.name()) + (names.empty() ? "" : " (fit: " + names + ")");
  return row;
}

}  // namespace idem::cli
