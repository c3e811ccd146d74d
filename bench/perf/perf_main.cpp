// idem_perf: the macro performance harness of issue 9. Measures idem-cli load against a raw
// libcurl client and the mock server against SQLite's own rate, in one invocation, and writes
// docs/PERFORMANCE.md. See bench/perf/report_text.cpp for what each figure means; scripts/perf.sh
// is the one command that builds everything and runs this.
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
    "                 [--work-dir DIR] [--commit TEXT] [--repetitions N] [--quick]\n"
    "  --idem-cli, --mock-server   the build measured\n"
    "  --before-*                  an older build, measured the same way (before columns)\n"
    "  --work-dir                  databases, journals and logs (default ./perf-work): the disk\n"
    "                              it is on is the one measured\n"
    "  --commit                    what the report says was measured (e.g. git describe)\n"
    "  --quick                     one short run per point, to try the harness out\n"
    "idem_minimal_server, idem_raw_curl_load, idem_transport_load and idem_sqlite_pattern\n"
    "are taken from the directory of idem_perf.\n";

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
  for (int i = 1; i < argc; ++i) {
    const std::string flag = argv[i];
    if (flag == "--help" || flag == "-h") {
      std::cout << usage;
      return 0;
    }
    if (flag == "--quick") {
      quick = true;
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
                      .work_dir = work_dir},
          .servers = {.minimal_server = (self_dir / "idem_minimal_server").string(),
                      .mock_server = fs::absolute(server).string(),
                      .work_dir = work_dir}};
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
