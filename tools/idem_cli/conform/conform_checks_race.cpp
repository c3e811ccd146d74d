// Checks 4 and 5 of `idem-cli conform`: a burst of requests with one key and one body, all
// started before any is answered; how many executions it made, and how the answers given while
// the first one ran ("in progress") are read.
#include <algorithm>
#include <map>
#include <set>

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

  std::set<std::string> ids;
  std::size_t successes = 0;
  std::size_t conflicts = 0;
  std::size_t replies = 0;
  for (const auto& a : c.burst) {
    replies += answered(a) ? 1 : 0;
    successes += succeeded(a) ? 1 : 0;
    conflicts += business_conflict_somewhere(a) ? 1 : 0;
    if (auto id = resource_id(a, c.endpoint.id_pointer)) ids.insert(*id);
  }
  if (replies == 0) return no_answer(std::move(row), c.burst.front(), "every request");
  const auto records = lookup_count(c, b);
  row.came_back = status_counts(c.burst) + "; " + std::to_string(ids.size()) +
                  (ids.size() == 1 ? " resource id" : " resource ids");
  if (conflicts > 0) row.came_back += "; " + std::to_string(conflicts) + " business conflicts";
  row.came_back += lookup_text(records, c);

  const std::size_t executions = std::max(ids.size() + conflicts, records.value_or(std::size_t{0}));
  if (executions > 1) {
    row.judge(verdict::fail,
              std::to_string(executions) +
                  " executions for one key: a double tap, or a retry that races its own first "
                  "attempt, makes two orders or charges. Claim the key with an atomic insert (a "
                  "unique constraint) before executing, never check-then-insert");
    row.setting = "no profile helps: the backend must claim keys atomically";
  } else if (successes == 0) {
    row.judge(verdict::error, "no request of the burst succeeded: nothing to count");
  } else if (ids.empty() && !records) {
    row.judge(verdict::warn,
              "the answers name no resource (--id-pointer) and there is no lookup: the "
              "executions could not be counted");
  } else {
    row.judge(verdict::pass,
              "one execution; every other request got the stored answer or \"in progress\"");
  }
  return row;
}

check_result check_in_progress(conform_context& c) {
  check_result row;
  row.sent = "(the answers of the racing burst that are neither 2xx nor business conflicts)";
  std::vector<transport_result> busy;
  std::map<std::string, std::size_t> kinds;
  bool executed_again = false;
  for (const auto& a : c.burst) {
    executed_again = executed_again || business_conflict_somewhere(a);
    if (!answered(a) || succeeded(a) || business_conflict_somewhere(a)) continue;
    busy.push_back(a);
    ++kinds[describe(a, c.endpoint.id_pointer)];
  }
  if (busy.empty()) {
    row.came_back = "not observed: no duplicate was answered \"in progress\"";
    row.judge(verdict::skip,
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
  row.judge(verdict::pass, read + ": idem waits and sends the same key again");
  row.why += all_retry_after ? "; Retry-After says how long"
                             : "; no Retry-After: idem waits by its own backoff";
  row.setting = std::string(c.profile.name()) + (names.empty() ? "" : " (fit: " + names + ")");
  return row;
}

}  // namespace idem::cli
