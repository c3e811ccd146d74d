// idem-soak's command line as it is run by hand (issue 44, item 1): --help succeeds with the
// usage on stdout, --version prints the project's version, and a bad flag is named with a short
// usage (not the whole manual) and exit status 2. In process: run_soak is all main does.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <sstream>
#include <string>
#include <vector>

#include "idem/version.hpp"
#include "idem_soak/run_soak.hpp"

namespace idem::soak {
namespace {

struct soak_cli_run {
  int status;
  std::string out;
  std::string err;
};

// Only command lines that end before a soak starts: help, version and usage errors.
soak_cli_run run_soak_cli(const std::vector<std::string>& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int status = run_soak(args, "/nowhere", out, err);
  return {status, out.str(), err.str()};
}

TEST(SoakCommandLine, HelpPrintsTheUsageAndSucceeds) {
  for (const char* help : {"--help", "-h"}) {
    const auto r = run_soak_cli({help});
    EXPECT_EQ(r.status, exit_passed) << help << ": " << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_TRUE(r.out.starts_with("usage: idem-soak ")) << r.out;
    for (const char* flag :
         {"--intents", "--seed", "--client-kills", "--server-kills", "--concurrency", "--mix",
          "--deadline", "--attempt-timeout", "--fault-period", "--fault-share",
          "--overrun-tolerance", "--mock-server", "--cli", "--work-dir", "--keep", "exit status"}) {
      EXPECT_NE(r.out.find(flag), std::string::npos) << flag << " in:\n" << r.out;
    }
  }
}

TEST(SoakCommandLine, VersionPrintsTheProjectsVersion) {
  const auto r = run_soak_cli({"--version"});
  EXPECT_EQ(r.status, exit_passed) << r.err;
  EXPECT_EQ(r.out, std::string("idem-soak ") + IDEM_VERSION_STRING + "\n");
  EXPECT_EQ(r.err, "");
}

TEST(SoakCommandLine, AnUnknownFlagIsNamedWithAShortUsage) {
  const auto r = run_soak_cli({"--intents", "10", "--bogus", "1"});
  EXPECT_EQ(r.status, exit_usage);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("idem-soak: unknown flag --bogus\n")) << r.err;
  EXPECT_NE(r.err.find("'idem-soak --help' lists its flags."), std::string::npos) << r.err;
  // It was the whole manual: 28 lines.
  EXPECT_LE(static_cast<std::size_t>(std::count(r.err.begin(), r.err.end(), '\n')), 6u) << r.err;
}

}  // namespace
}  // namespace idem::soak
