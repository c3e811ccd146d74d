// idem-mock-server's command line as a newcomer meets it (issue 44, item 1): --help succeeds
// with the usage on stdout, --version prints the project's version, and a bad flag is named with
// a short usage (not the whole manual) and exit status 2.
#include <sys/wait.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "idem/version.hpp"
#include "tests/support/processes/child_process.hpp"

namespace idem::kit {
namespace {

bool mock_cli_exited_with(const finished_process& run, int status) {
  return !run.timed_out && WIFEXITED(run.wait_status) && WEXITSTATUS(run.wait_status) == status;
}

std::size_t mock_cli_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(MockServerCommandLine, HelpPrintsTheUsageAndSucceeds) {
  for (const char* help : {"--help", "-h"}) {
    const auto run = run_mock_server_to_exit({help});
    EXPECT_TRUE(mock_cli_exited_with(run, 0)) << help << ": " << run.wait_status << '\n'
                                              << run.output;
    EXPECT_TRUE(run.output.starts_with("usage: idem-mock-server ")) << run.output;
    for (const char* flag : {"--listen", "--db", "--admin-token-file", "--faults", "--principal",
                             "--max-connections", "--completer-interval", "exit status"}) {
      EXPECT_NE(run.output.find(flag), std::string::npos) << flag << " in:\n" << run.output;
    }
  }
}

TEST(MockServerCommandLine, VersionPrintsTheProjectsVersion) {
  const auto run = run_mock_server_to_exit({"--version"});
  EXPECT_TRUE(mock_cli_exited_with(run, 0)) << run.wait_status << '\n' << run.output;
  EXPECT_EQ(run.output, std::string("idem-mock-server ") + IDEM_VERSION_STRING + "\n");
}

TEST(MockServerCommandLine, AnUnknownFlagIsNamedWithAShortUsage) {
  for (const std::vector<std::string>& args :
       {std::vector<std::string>{"--bogus"}, {"--db", ":memory:", "--bogus", "1"}}) {
    const auto run = run_mock_server_to_exit(args);
    EXPECT_TRUE(mock_cli_exited_with(run, 2)) << run.wait_status << '\n' << run.output;
    EXPECT_TRUE(run.output.starts_with("idem-mock-server: unknown flag --bogus\n")) << run.output;
    EXPECT_NE(run.output.find("'idem-mock-server --help' lists its flags."), std::string::npos)
        << run.output;
    EXPECT_LE(mock_cli_lines(run.output), 6u) << run.output;  // was the whole manual, 30 lines
  }
}

TEST(MockServerCommandLine, AFlagWithoutItsValueIsNamed) {
  const auto run = run_mock_server_to_exit({"--admin-token", "t", "--lease"});
  EXPECT_TRUE(mock_cli_exited_with(run, 2)) << run.wait_status << '\n' << run.output;
  EXPECT_TRUE(run.output.starts_with("idem-mock-server: --lease needs a value\n")) << run.output;
}

}  // namespace
}  // namespace idem::kit
