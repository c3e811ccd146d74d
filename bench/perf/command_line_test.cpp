// idem_perf's command line (issue 44, item 1): --help succeeds with the usage, --version prints
// the project's version, and a flag it does not know is named (it was taken as a value and
// ignored). Runs the built idem_perf, but only with command lines that end before it measures.
#include <unistd.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "child_usage.hpp"
#include "idem/version.hpp"

namespace perf {
namespace {

struct perf_cli_run {
  int status;
  std::string out;
  std::string err;
};

perf_cli_run run_perf_cli(std::vector<std::string> args) {
  const auto err_path = std::filesystem::temp_directory_path() /
                        ("idem_perf_cli_" + std::to_string(::getpid()) + ".err");
  std::filesystem::remove(err_path);
  args.insert(args.begin(), IDEM_PERF_BINARY);
  const child_usage u = run_to_end(args, err_path.string());
  std::ostringstream err;
  err << std::ifstream{err_path}.rdbuf();
  std::filesystem::remove(err_path);
  return {u.exit_status, u.out, err.str()};
}

TEST(PerfCommandLine, HelpPrintsTheUsageAndSucceeds) {
  for (const char* help : {"--help", "-h"}) {
    const auto r = run_perf_cli({help});
    EXPECT_EQ(r.status, 0) << help << ": " << r.err;
    EXPECT_TRUE(r.out.starts_with("usage: idem_perf ")) << r.out;
    for (const char* flag :
         {"--idem-cli", "--mock-server", "--out", "--before-idem-cli", "--before-mock-server",
          "--before-label", "--work-dir", "--commit", "--repetitions", "--quick", "--no-pin"}) {
      EXPECT_NE(r.out.find(flag), std::string::npos) << flag << " in:\n" << r.out;
    }
  }
}

TEST(PerfCommandLine, VersionPrintsTheProjectsVersion) {
  const auto r = run_perf_cli({"--version"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.out, std::string("idem_perf ") + IDEM_VERSION_STRING + "\n");
}

TEST(PerfCommandLine, AnUnknownFlagIsNamed) {
  const auto r = run_perf_cli({"--bogus", "1"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("idem_perf: unknown flag --bogus\n")) << r.err;
  EXPECT_NE(r.err.find("'idem_perf --help' lists its flags."), std::string::npos) << r.err;
}

}  // namespace
}  // namespace perf
