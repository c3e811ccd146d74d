#include "idem_cli/journal/journal_command.hpp"

#include <ctime>

#include "idem_cli/exit_status.hpp"
#include "idem_cli/journal/journal_file.hpp"

namespace idem::cli {
namespace {

// RFC 3339 UTC with milliseconds, e.g. 2026-11-30T18:30:13.042Z.
std::string rfc3339(wall_time t) {
  const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch());
  const std::time_t secs = static_cast<std::time_t>(ms.count() / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  char buf[40];
  const auto n = std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%S", &tm);
  std::snprintf(buf + n, sizeof buf - n, ".%03dZ", static_cast<int>(ms.count() % 1000));
  return buf;
}

nlohmann::json optional_time(const std::optional<wall_time>& t) {
  return t ? nlohmann::json(rfc3339(*t)) : nlohmann::json(nullptr);
}

}  // namespace

nlohmann::json to_json(const journal_counts& c) {
  return {{"intents", c.intents},
          {"succeeded", c.succeeded},
          {"rejected", c.rejected},
          {"not_sent", c.not_sent},
          {"unresolved", c.unresolved}};
}

nlohmann::json to_json(const intent_record& r, const std::vector<timeline_entry>& timeline) {
  nlohmann::json lines = nlohmann::json::array();
  for (const auto& e : timeline) {
    nlohmann::json line = {{"at", rfc3339(e.at)}, {"event", std::string(to_string(e.what))}};
    if (e.attempt != 0) line["attempt"] = e.attempt;
    if (e.cls) line["class"] = std::string(to_string(*e.cls));
    if (e.status != 0) line["status"] = e.status;
    if (!e.request_id.empty()) line["request_id"] = e.request_id;
    if (e.duration.count() != 0) line["duration_ms"] = e.duration.count();
    if (!e.detail.empty()) line["detail"] = e.detail;
    lines.push_back(std::move(line));
  }
  nlohmann::json j = {
      {"key", r.what.key().str()},
      {"state", std::string(to_string(r.state))},
      {"method", r.what.op().method},
      {"path", r.what.op().path},
      {"path_bound", r.path_bound},
      {"attempts", r.attempts},
      {"maybe_sent", r.maybe_sent()},
      {"created_at", rfc3339(r.created_at)},
      {"first_attempt_at", optional_time(r.first_attempt_at)},
      {"finished_at", optional_time(r.finished_at)},
      {"last_outcome", r.last_outcome ? nlohmann::json(std::string(to_string(*r.last_outcome)))
                                      : nlohmann::json(nullptr)},
      {"timeline", std::move(lines)}};
  if (r.depends_on) j["depends_on"] = *r.depends_on;
  if (r.final_status != 0) j["status"] = r.final_status;
  if (!r.error.empty()) j["error"] = r.error;
  return j;
}

int run_journal(const journal_args& args, std::ostream& out, std::ostream& err) {
  auto journal = open_journal_file(args.journal, /*read_only=*/true);
  if (args.show.empty()) {
    out << to_json(journal->counts()).dump() << '\n';
    return exit_all_succeeded;
  }
  auto key = idempotency_key::from_string(args.show);
  auto record = key ? journal->find(*key) : std::nullopt;
  if (!record) {
    err << "idem-cli: the journal has no intent with key '" << args.show << "'\n";
    return exit_usage;
  }
  out << to_json(*record, journal->timeline(*key)).dump() << '\n';
  return exit_all_succeeded;
}

}  // namespace idem::cli
