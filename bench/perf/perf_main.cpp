// idem_perf: the macro performance harness of issue 9. Measures idem-cli load against a raw
// libcurl client and the mock server against SQLite's own rate, in one invocation, and writes
// docs/PERFORMANCE.md. See bench/perf/report_text.cpp for what each figure means; scripts/perf.sh
// is the one command that builds everything and runs this.
#include <sched.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "child_usage.hpp"
#include "common/command_line.hpp"
#include "idem/version.hpp"
#include "report.hpp"
#include "runner.hpp"

namespace {

namespace fs = std::filesystem;

namespace common = idem::common;
using common::flag;
using enum common::flag_kind;

common::program_spec program() {
  std::vector<flag> flags{
      {"idem-cli", "PATH", "the idem-cli measured", required},
      {"mock-server", "PATH", "the idem-mock-server measured", required},
      {"out", "FILE", "where the report goes (docs/PERFORMANCE.md)", required},
      {"before-idem-cli", "PATH", "an older build, measured the same way (before columns)"},
      {"before-mock-server", "PATH", "its server (default: --mock-server)"},
      {"before-label", "TEXT", "what the report calls it (default: the --before-* build)"},
      {"work-dir", "DIR",
       "databases, journals and logs (default ./perf-work): the disk\nit is on is the one "
       "measured"},
      {"commit", "TEXT", "what the report says was measured (e.g. git describe)"},
      {"repetitions", "N", "runs per point (default: the plan's)"},
      {"quick", "", "one short run per point, to try the harness out"},
      {"no-pin", "",
       "leave the clients and the minimal server to the scheduler (by\n"
       "default each client runs on one CPU, the minimal server on another)"},
  };
  const std::string_view usage =
      "usage: idem_perf --idem-cli PATH --mock-server PATH --out FILE [FLAGS]\n"
      "  Measures idem-cli load against a raw libcurl client and the mock server against\n"
      "  SQLite's own rate, and writes the report.";
  const std::string_view footer =
      "idem_minimal_server, idem_raw_curl_load, idem_transport_load, idem_floor_load,\n"
      "idem_sqlite_pattern and idem_journal_open are taken from the directory of idem_perf;\n"
      "strace (for the fsync counts) from PATH.\n\n"
      "exit status: 0 the report is written; 1 the harness failed; 2 usage error.";
  return common::program_of("idem_perf", IDEM_VERSION_STRING, usage, std::move(flags),
                            std::string(footer));
}

// The CPUs the clients and the minimal server run on: the first two this process may use, or
// none (-1) with fewer than two. Apart, as an app and its server are; and always the same way,
// for the scheduler put them on one CPU for some runs and apart for others (on the 2-core
// development VM, raw libcurl cost about 12 % less CPU a request on one CPU than apart, and a
// point's median moved with how many of its runs landed there).
std::pair<int, int> pinned_cpus() {
  cpu_set_t allowed;
  CPU_ZERO(&allowed);
  if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) return {-1, -1};
  std::vector<int> cpus;
  for (int c = 0; c < CPU_SETSIZE && cpus.size() < 2; ++c) {
    if (CPU_ISSET(c, &allowed)) cpus.push_back(c);
  }
  if (cpus.size() < 2) return {-1, -1};
  return {cpus[0], cpus[1]};
}

// File descriptors for thousands of connections on each side; the children inherit the limit.
void raise_file_limit() {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) == 0 && r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    setrlimit(RLIMIT_NOFILE, &r);
  }
}

// `name`'s path in $PATH, or empty.
std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr ? path : "/usr/bin:/bin";
  std::size_t from = 0;
  while (from <= dirs.size()) {
    const auto to = std::min(dirs.find(':', from), dirs.size());
    const std::filesystem::path candidate =
        std::filesystem::path(dirs.substr(from, to - from)) / name;
    if (to > from && ::access(candidate.c_str(), X_OK) == 0) return candidate.string();
    from = to + 1;
  }
  return {};
}

perf::sqlite_result run_sqlite_pattern(const std::string& program, const std::string& work_dir,
                                       bool quick) {
  std::cerr << "idem_perf: SQLite's own rate for the create-order pattern" << std::endl;
  const auto u = perf::run_to_end({program, "--dir", work_dir, "--seconds", quick ? "1" : "3"},
                                  work_dir + "/sqlite_pattern.log");
  const auto j = nlohmann::json::parse(u.out, nullptr, false);
  if (u.exit_status != 0 || j.is_discarded()) return {};
  return {.available = true,
          .one_txn_per_s = j.value("one_txn_per_s", 0.0),
          .server_split_per_s = j.value("server_split_per_s", 0.0),
          .version = j.value("sqlite", std::string{})};
}

}  // namespace

int main(int argc, char** argv) {
  const common::program_spec spec = program();
  auto parsed = common::parse_flags(spec, {argv + 1, argv + argc});
  if (auto* help = std::get_if<common::help_request>(&parsed)) {
    std::cout << help->text;
    return 0;
  }
  const auto* read = std::get_if<common::parsed_flags>(&parsed);
  std::optional<std::size_t> repetitions;
  if (read != nullptr && read->values.has("repetitions")) {
    repetitions = common::parse_count(read->values.get("repetitions"), 1000);
    if (!repetitions) {
      parsed = common::usage_error{
          "bad --repetitions '" + read->values.get("repetitions") + "' (1 to 1000)",
          common::usage_hint(spec)};
    }
  }
  if (auto* error = std::get_if<common::usage_error>(&parsed)) {
    std::cerr << "idem_perf: " << error->message << '\n' << error->hint;
    return 2;
  }
  const common::flag_values& flags = read->values;
  const bool quick = flags.has("quick");
  const bool pin = !flags.has("no-pin");
  try {
    raise_file_limit();
    const fs::path self_dir = fs::canonical("/proc/self/exe").parent_path();
    const std::string work_dir =
        fs::absolute(flags.has("work-dir") ? flags.get("work-dir") : "perf-work").string();
    fs::create_directories(work_dir);
    for (const char* log : {"/clients.log", "/servers.log"})
      fs::remove(work_dir + log);

    perf::plan plan = perf::default_plan(quick);
    if (repetitions) plan.repetitions = static_cast<int>(*repetitions);
    const auto [client_cpu, server_cpu] = pin ? pinned_cpus() : std::pair{-1, -1};
    // The fsync count of the device-cost table (n/a without strace; scripts/perf.sh installs it).
    const std::string strace = find_on_path("strace");

    auto make_variant = [&](const std::string& name, const std::string& cli,
                            const std::string& server) {
      perf::variant v{
          .name = name,
          .clients = {.idem_cli = fs::absolute(cli).string(),
                      .raw_curl_load = (self_dir / "idem_raw_curl_load").string(),
                      // Built from this tree: it measures the current transport only.
                      .transport_load = name == "current"
                                            ? (self_dir / "idem_transport_load").string()
                                            : std::string{},
                      .floor_load = name == "current" ? (self_dir / "idem_floor_load").string()
                                                      : std::string{},
                      .work_dir = work_dir,
                      .cpu = client_cpu,
                      .strace = strace,
                      .journal_open = name == "current" ? (self_dir / "idem_journal_open").string()
                                                        : std::string{},
                      .journal_floor = name == "current"
                                           ? (self_dir / "idem_journal_floor").string()
                                           : std::string{}},
          .servers = {.minimal_server = (self_dir / "idem_minimal_server").string(),
                      .mock_server = fs::absolute(server).string(),
                      .work_dir = work_dir,
                      .minimal_server_cpu = server_cpu}};
      v.skip_refused_points = name == "before";
      v.servers.mock_has_completer_interval =
          perf::mock_server_has_flag(v.servers.mock_server, "--completer-interval", work_dir);
      v.servers.mock_has_max_connections =
          perf::mock_server_has_flag(v.servers.mock_server, "--max-connections", work_dir);
      return v;
    };

    const auto sqlite =
        run_sqlite_pattern((self_dir / "idem_sqlite_pattern").string(), work_dir, quick);
    perf::report_input in{.measured = plan,
                          .machine = {},
                          .now = perf::runner{make_variant("current", flags.get("idem-cli"),
                                                           flags.get("mock-server")),
                                              plan}
                                     .run_all(),
                          .before = std::nullopt,
                          .before_label = flags.has("before-label") ? flags.get("before-label")
                                                                    : "the --before-* build",
                          .sqlite = sqlite};
    if (flags.has("before-idem-cli") || flags.has("before-mock-server")) {
      const std::string cli =
          flags.has("before-idem-cli") ? flags.get("before-idem-cli") : flags.get("idem-cli");
      const std::string server = flags.has("before-mock-server") ? flags.get("before-mock-server")
                                                                 : flags.get("mock-server");
      in.before = perf::runner{make_variant("before", cli, server), plan}.run_all();
    }
    in.machine = perf::describe_machine(work_dir, flags.get("commit"), sqlite.version);
    in.machine.emplace_back(
        "pinning", client_cpu < 0 ? std::string("none (the scheduler places clients and servers)")
                                  : "each client on CPU " + std::to_string(client_cpu) +
                                        ", the minimal server on CPU " +
                                        std::to_string(server_cpu) + " (the mock server unpinned)");

    std::ofstream out{flags.get("out")};
    if (!out) throw std::runtime_error("cannot write " + flags.get("out"));
    perf::write_report(out, in);
    out.close();
    std::cout << "idem_perf: wrote " << flags.get("out") << "\n";
    perf::print_targets(std::cout, in);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "idem_perf: " << e.what() << '\n';
    return 1;
  }
}
