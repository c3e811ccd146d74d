// What an intent costs the device (issue 47): the memory store against the SQLite journal, at 1
// and at the target's in-flight count, against the minimal server; and how long opening a
// journal takes (idem_journal_open). For the current build only: an older idem-cli's figures
// would be measured the same way, but its journal is not the one the targets are about.
#include <algorithm>
#include <cmath>
#include <iostream>
#include <nlohmann/json.hpp>

#include "child_usage.hpp"
#include "runner.hpp"

namespace perf {
namespace {

void tell(const std::string& build, const std::string& what) {
  std::cerr << "idem_perf [" << build << "] " << what << std::endl;
}

}  // namespace

device_cost_result runner::device_cost() {
  device_cost_result out;
  if (v_.clients.transport_load.empty()) return out;  // an older build
  const std::string file = v_.servers.work_dir + "/device.journal";
  const std::uint64_t n = plan_.device_requests;
  for (const std::uint64_t c : {std::uint64_t{1}, plan_.target_concurrency}) {
    for (const bool journal : {false, true}) {
      const point at{.server = server_kind::minimal,
                     .concurrency = c,
                     .delay = milliseconds{0},
                     .requests = n};
      const load_shape shape{
          .requests = n, .concurrency = c, .journal = journal ? file : std::string{}};
      tell(v_.name, std::string("device cost: ") + (journal ? "journal" : "memory store") + ", " +
                        std::to_string(c) + " in flight, " + std::to_string(n) + " intents");
      std::vector<sample> runs;
      for (int rep = 0; rep < plan_.repetitions; ++rep)
        runs.push_back(one(client_kind::idem, at, shape));
      device_cost_row row{
          .journal = journal, .concurrency = c, .stats = summarize(runs), .syncs_per_intent = {}};
      if (!v_.clients.strace.empty()) {
        load_shape counted = shape;
        counted.strace = v_.clients.strace;
        const sample s = one(client_kind::idem, at, counted);
        if (s.sync_calls && s.requests > 0)
          row.syncs_per_intent =
              static_cast<double>(*s.sync_calls) / static_cast<double>(s.requests);
      }
      out.rows.push_back(std::move(row));
    }
  }
  out.measured = true;
  return out;
}

journal_open_result runner::journal_open() {
  journal_open_result out;
  if (v_.clients.journal_open.empty()) return out;
  tell(v_.name, "journal open: 10,000 final and 100 open intents");
  const child_usage u =
      run_to_end({v_.clients.journal_open, "--dir", v_.servers.work_dir, "--final", "10000",
                  "--open", "100", "--repetitions", std::to_string(std::max(plan_.repetitions, 5))},
                 v_.servers.work_dir + "/clients.log");
  const auto j = nlohmann::json::parse(u.out, nullptr, false);
  if (u.exit_status != 0 || !j.is_object()) {
    tell(v_.name, "  idem_journal_open failed (exit status " + std::to_string(u.exit_status) +
                      "); see clients.log");
    return out;
  }
  out.measured = true;
  out.final_intents = j.value("final", std::uint64_t{0});
  out.open_intents = j.value("open", std::uint64_t{0});
  out.file_bytes = j.value("file_bytes", std::uint64_t{0});
  out.repetitions = j.value("repetitions", 0);
  out.clean_ms = j.value("clean_ms", 0.0);
  out.clean_max_ms = j.value("clean_max_ms", 0.0);
  out.unclean_ms = j.value("unclean_ms", 0.0);
  return out;
}

journal_floor_result runner::journal_floor(double observed) {
  journal_floor_result out;
  if (v_.clients.journal_floor.empty()) return out;
  std::string per_commit = "1,16";
  if (observed >= 1.5 && std::lround(observed) != 16)
    per_commit.append(",").append(std::to_string(std::lround(observed)));
  tell(v_.name, "the journal's floor: raw SQLite, " + per_commit + " intents per commit");
  // On the clients' CPU, as the journal's writer thread runs there.
  const child_usage u =
      run_to_end({v_.clients.journal_floor, "--dir", v_.servers.work_dir, "--per-commit",
                  per_commit, "--repetitions", std::to_string(std::max(plan_.repetitions / 2, 1))},
                 v_.servers.work_dir + "/clients.log", v_.clients.cpu);
  const auto j = nlohmann::json::parse(u.out, nullptr, false);
  if (u.exit_status != 0 || !j.is_object() || !j.contains("shapes")) {
    tell(v_.name, "  idem_journal_floor failed (exit status " + std::to_string(u.exit_status) +
                      "); see clients.log");
    return out;
  }
  out.measured = true;
  out.intents = j.value("intents", std::uint64_t{0});
  out.repetitions = j.value("repetitions", 0);
  for (const auto& s : j["shapes"])
    out.shapes.push_back({.per_commit = s.value("per_commit", 0.0),
                          .full_cpu_us = s.value("full_cpu_us", 0.0),
                          .off_cpu_us = s.value("off_cpu_us", 0.0),
                          .commit_wall_us = s.value("commit_wall_us", 0.0)});
  std::sort(out.shapes.begin(), out.shapes.end(),
            [](const auto& a, const auto& b) { return a.per_commit < b.per_commit; });
  return out;
}

}  // namespace perf
