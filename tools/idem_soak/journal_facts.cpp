#include "idem_soak/journal_facts.hpp"

#include <algorithm>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "idem/planned_intent.hpp"
#include "idem/sqlite_journal.hpp"
#include "idem_soak/sqlite_reader.hpp"

namespace idem::soak {
namespace {

bool ends_with(std::string_view s, std::string_view suffix) {
  return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

// /v1/orders/{id}/payments and /v1/orders/{id}/cancel: the order's id (still the placeholder
// in a plan that was never bound).
std::string order_id_in(std::string_view path, bool bound) {
  constexpr std::string_view prefix = "/v1/orders/";
  if (!bound || !path.starts_with(prefix)) return {};
  const auto rest = path.substr(prefix.size());
  return std::string(rest.substr(0, rest.find('/')));
}

journal_intent describe(const intent_record& r) {
  journal_intent out;
  out.key = r.what.key().str();
  const std::string& path = r.what.op().path;
  if (path == "/v1/orders") {
    out.kind = intent_kind::create;
    const auto body = nlohmann::json::parse(r.what.body(), nullptr, false);
    if (body.is_object()) out.merchant_order_id = body.value("merchant_order_id", "");
  } else if (ends_with(path, "/payments")) {
    out.kind = intent_kind::pay;
  } else if (ends_with(path, "/cancel")) {
    out.kind = intent_kind::cancel;
  }
  if (out.kind != intent_kind::create) out.order_id = order_id_in(path, r.path_bound);
  out.depends_on = r.depends_on;
  out.state = r.state;
  out.final_status = r.final_status;
  out.result_id = created_resource_id(r.final_body).value_or("");
  out.error = r.error;
  return out;
}

// The steps that belong to a submission (not the plan's `created`, not `abandoned`).
bool starts_a_run(timeline_entry::kind k) {
  using kind = timeline_entry::kind;
  return k == kind::path_bound || k == kind::attempt_started || k == kind::attempt_finished ||
         k == kind::waited || k == kind::lookup || k == kind::outcome;
}

}  // namespace

std::string_view to_string(intent_kind k) noexcept {
  switch (k) {
    case intent_kind::create:
      return "create";
    case intent_kind::pay:
      return "pay";
    case intent_kind::cancel:
      return "cancel";
    case intent_kind::other:
      break;
  }
  return "other";
}

std::vector<run_window> runs_of(const std::vector<timeline_entry>& timeline,
                                const std::vector<wall_time>& process_starts) {
  std::vector<run_window> runs;
  std::size_t first = 0;  // the first entry after the previous outcome
  wall_time after{};      // the previous outcome's time
  for (std::size_t n = 0; n < timeline.size(); ++n) {
    const auto& e = timeline[n];
    if (e.what != timeline_entry::kind::outcome) continue;
    wall_time boundary = after;
    for (const auto& s : process_starts)
      if (s <= e.at) boundary = std::max(boundary, s);
    wall_time start = e.at;
    for (std::size_t m = first; m < n; ++m) {
      if (starts_a_run(timeline[m].what) && timeline[m].at >= boundary) {
        start = timeline[m].at;
        break;
      }
    }
    runs.push_back({.start = start, .end = e.at});
    first = n + 1;
    after = e.at;
  }
  return runs;
}

journal_facts read_journal_facts(const std::string& path,
                                 const std::vector<wall_time>& process_starts) {
  // The journal's API finds an intent by key; the keys themselves (and the order they were
  // written in) come from its `intents` table (src/store/sqlite/sqlite_journal_schema.cpp).
  std::vector<std::string> keys;
  sqlite_reader(path).each("SELECT key FROM intents ORDER BY seq",
                           [&](const sqlite_row& r) { keys.push_back(r.text(0)); });
  std::error_code ec;
  std::string detail;
  const auto journal = sqlite_journal::open({.path = path, .read_only = true}, ec, &detail);
  if (!journal) throw std::runtime_error("cannot read journal " + path + ": " + detail);
  journal_facts facts;
  facts.intents.reserve(keys.size());
  for (const auto& text : keys) {
    const auto key = idempotency_key::from_string(text);
    const auto record = key ? journal->find(*key) : std::nullopt;
    if (!record) throw std::runtime_error("journal " + path + ": cannot read intent " + text);
    journal_intent i = describe(*record);
    i.runs = runs_of(journal->timeline(*key), process_starts);
    facts.intents.push_back(std::move(i));
  }
  return facts;
}

}  // namespace idem::soak
