#pragma once
// Shared by the tests of `idem-cli conform` (cli_conform_test, cli_conform_broken_test,
// cli_conform_interop_test): run the command in process through run_cli, with the report as
// JSON, and read a check's verdict from it.

#include <nlohmann/json.hpp>
#include <ostream>
#include <sstream>
#include <string>
#include <vector>

#include "idem_cli/conform/conform_result.hpp"
#include "idem_cli/conform/conform_table.hpp"
#include "idem_cli/run_cli.hpp"

namespace idem::test {

/// Every check `idem-cli conform` runs, by id, in the order of its report.
inline const std::vector<std::string> every_check = {
    "missing-key", "replay",          "mismatch",  "race",
    "in-progress", "principal-scope", "final-4xx", "key-forms"};

/// What one `idem-cli conform ... --json` run came to.
struct conform_run {
  int status = -1;
  std::string out;
  std::string err;
  nlohmann::json report;  ///< the parsed stdout (discarded when it is not JSON)

  /// The verdict of check `id` ("pass", "warn", "fail", "skip", "error"), or "missing".
  [[nodiscard]] std::string verdict(const std::string& id) const {
    if (!report.is_object() || !report.contains("checks")) return "missing";
    for (const auto& c : report["checks"]) {
      if (c.value("id", "") == id) return c.value("verdict", "missing");
    }
    return "missing";
  }
  /// How sure the verdict of check `id` is ("proven", "observed", "inconclusive"), or "missing".
  [[nodiscard]] std::string certainty(const std::string& id) const {
    if (!report.is_object() || !report.contains("checks")) return "missing";
    for (const auto& c : report["checks"]) {
      if (c.value("id", "") == id) return c.value("certainty", "missing");
    }
    return "missing";
  }
  /// The row of check `id` as JSON text, for failure messages.
  [[nodiscard]] std::string row(const std::string& id) const {
    if (report.is_object() && report.contains("checks")) {
      for (const auto& c : report["checks"]) {
        if (c.value("id", "") == id) return c.dump(2);
      }
    }
    return "(no row " + id + ")\n" + out + err;
  }
};

/// The run's report as the table `idem-cli conform` prints (rebuilt from its JSON form, so that
/// a test shows the table without running the checks twice).
inline void print_table_of(const conform_run& r, std::ostream& out) {
  if (!r.report.is_object()) {
    out << r.out << r.err;
    return;
  }
  cli::conform_report report{.url = r.report.value("url", ""),
                             .path = r.report.value("path", ""),
                             .profile = r.report.value("profile", ""),
                             .race = r.report.value("race", std::size_t{0}),
                             .checks = {}};
  for (const auto& c : r.report["checks"]) {
    cli::check_result row{.id = c.value("id", ""),
                          .title = c.value("title", ""),
                          .sent = c.value("sent", ""),
                          .came_back = c.value("came_back", ""),
                          .result = cli::verdict::error,
                          .why = c.value("why", ""),
                          .setting = c.value("idem_setting", "")};
    for (auto v : {cli::verdict::pass, cli::verdict::warn, cli::verdict::fail, cli::verdict::skip})
      if (c.value("verdict", "") == (v == cli::verdict::fail ? "fail" : to_string(v)))
        row.result = v;
    for (auto s : {cli::certainty::proven, cli::certainty::observed, cli::certainty::inconclusive})
      if (c.value("certainty", "") == to_string(s)) row.sure = s;
    if (c.contains("profiles_ok"))
      row.profiles_ok = c["profiles_ok"].get<std::vector<std::string>>();
    report.checks.push_back(std::move(row));
  }
  cli::print_table(report, out);
}

/// Runs `idem-cli args... --json` in this process.
inline conform_run run_conform_json(std::vector<std::string> args) {
  args.emplace_back("--json");
  std::ostringstream out;
  std::ostringstream err;
  conform_run r;
  r.status = cli::run_cli(args, out, err, /*show_progress=*/false);
  r.out = out.str();
  r.err = err.str();
  r.report = nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
  return r;
}

}  // namespace idem::test
