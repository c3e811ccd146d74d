// idem_perf: the macro performance harness of issue 9. Measures idem-cli load against a raw
// libcurl client and the mock server against SQLite's own rate, in one invocation, and writes
// docs/PERFORMANCE.md. See bench/perf/report_text.cpp for what each figure means; scripts/perf.sh
// is the one command that builds everything and runs this.
#include <sched.h>
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "child_process.hpp"
#include "report.hpp"
#include "runner.hpp"

namespace {

namespace fs = std::filesystem;

constexpr const char* usage =
    "usage: idem_perf --idem-cli PATH --mock-server PATH --out FILE\n"
    "                 [--before-idem-cli PATH] [--before-mock-server PATH] [--before-label TEXT]\n"
    "                 [--work-dir DIR] [--commit TEXT] [--repetitions N] [--quick] [--no-pin]\n"
    "  --idem-cli, --mock-server   the build measured\n"
    "  --before-*                  an older build, measured the same way (before columns)\n"
    "  --work-dir                  databases, journals and logs (default ./perf-work): the disk\n"
    "                              it is on is the one measured\n"
    "  --commit                    what the report says was measured (e.g. git describe)\n"
    "  --quick                     one short run per point, to try the harness out\n"
    "  --no-pin                    leave the clients and the minimal server to the scheduler\n"
    "                              (by default each client runs on one CPU, the minimal\n"
    "                              server on another)\n"
    "idem_minimal_server, idem_raw_curl_load, idem_transport_load, idem_floor_load and\n"
    "idem_sqlite_pattern are taken from the directory of idem_perf.\n";

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
  std::map<std::string, std::string> flags;
  bool quick = false;
  bool pin = true;
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << usage;
      return 0;
    }
    if (flag == "--quick") {
      quick = true;
    } else if (flag == "--no-pin") {
      pin = false;
    } else if (flag.rfind("--", 0) == 0 && i + 1 < argc) {
      flags[flag.substr(2)] = argv[++i];
    } else {
      std::cerr << "idem_perf: unexpected '" << flag << "'\n" << usage;
      return 2;
    }
  }
  for (const char* required : {"idem-cli", "mock-server", "out"}) {
    if (flags.count(required) == 0) {
      std::cerr << "idem_perf: --" << required << " is required\n" << usage;
      return 2;
    }
  }
  try {
    raise_file_limit();
    const fs::path self_dir = fs::canonical("/proc/self/exe").parent_path();
    const std::string work_dir =
        fs::absolute(flags.count("work-dir") ? flags["work-dir"] : "perf-work").string();
    fs::create_directories(work_dir);
    for (const char* log : {"/clients.log", "/servers.log"})
      fs::remove(work_dir + log);

    perf::plan plan = perf::default_plan(quick);
    if (flags.count("repetitions")) plan.repetitions = std::stoi(flags["repetitions"]);
    const auto [client_cpu, server_cpu] = pin ? pinned_cpus() : std::pair{-1, -1};

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
                      .cpu = client_cpu},
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
    perf::report_input in{
        .measured = plan,
        .machine = {},
        .now = perf::runner{make_variant("current", flags["idem-cli"], flags["mock-server"]), plan}
                   .run_all(),
        .before = std::nullopt,
        .before_label =
            flags.count("before-label") ? flags["before-label"] : "the --before-* build",
        .sqlite = sqlite};
    if (flags.count("before-idem-cli") || flags.count("before-mock-server")) {
      const std::string cli =
          flags.count("before-idem-cli") ? flags["before-idem-cli"] : flags["idem-cli"];
      const std::string server =
          flags.count("before-mock-server") ? flags["before-mock-server"] : flags["mock-server"];
      in.before = perf::runner{make_variant("before", cli, server), plan}.run_all();
    }
    in.machine = perf::describe_machine(work_dir, flags["commit"], sqlite.version);
    in.machine.emplace_back(
        "pinning", client_cpu < 0 ? std::string("none (the scheduler places clients and servers)")
                                  : "each client on CPU " + std::to_string(client_cpu) +
                                        ", the minimal server on CPU " +
                                        std::to_string(server_cpu) + " (the mock server unpinned)");

    std::ofstream out{flags["out"]};
    if (!out) throw std::runtime_error("cannot write " + flags["out"]);
    perf::write_report(out, in);
    out.close();
    std::cout << "idem_perf: wrote " << flags["out"] << "\n";
    perf::print_targets(std::cout, in);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "idem_perf: " << e.what() << '\n';
    return 1;
  }
}
