// idem-cli's help as a newcomer meets it (contract section 9): `idem-cli COMMAND --help` prints
// that command's usage only and succeeds, `--version` prints the project's version, no command at
// all gets a short usage (not the whole manual), and a bad flag is named with a pointer to the
// command's help.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "idem/version.hpp"
#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/exit_status.hpp"
#include "tests/tools/support/cli_run.hpp"

namespace idem::cli {
namespace {

using cli_test::run;

const std::vector<std::string> every_command = {"submit", "load", "resume", "journal", "conform"};

std::size_t count_lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(CliHelp, EveryCommandHasItsOwnHelpOnStdoutAndSucceeds) {
  for (const std::string& name : every_command) {
    for (const char* help : {"--help", "-h"}) {
      const auto r = run({name, help});
      EXPECT_EQ(r.status, exit_all_succeeded) << name << ' ' << help << ": " << r.err;
      EXPECT_EQ(r.err, "") << name;
      EXPECT_TRUE(r.out.starts_with("usage: idem-cli " + name + " ")) << name << ":\n" << r.out;
      // That command's usage only: no other command's synopsis.
      for (const std::string& other : every_command) {
        if (other == name) continue;
        EXPECT_EQ(r.out.find("idem-cli " + other + " "), std::string::npos)
            << name << "'s help names " << other << ":\n"
            << r.out;
      }
    }
  }
}

TEST(CliHelp, LoadAndConformHelpListTheirFlags) {
  const auto load = run({"load", "--help"});
  for (const char* flag : {"--orders N", "--concurrency", "--pay", "--mix", "--seed", "--journal",
                           "--path", "--url URL", "--token T", "--deadline", "--lookup-url"}) {
    EXPECT_NE(load.out.find(flag), std::string::npos) << flag << " in:\n" << load.out;
  }
  const auto conform = run({"conform", "--help"});
  for (const char* flag : {"--token2", "--body-file", "--id-pointer", "--race", "--format",
                           "--json", "3 none failed but some could not be completed"}) {
    EXPECT_NE(conform.out.find(flag), std::string::npos) << flag << " in:\n" << conform.out;
  }
  EXPECT_EQ(conform.out.find("--deadline 30s"), std::string::npos) << "conform takes no --deadline";
}

TEST(CliHelp, HelpBeforeACommandIsThatCommandsHelp) {
  EXPECT_EQ(run({"help", "load"}).out, run({"load", "--help"}).out);
  EXPECT_EQ(run({"help", "load"}).status, exit_all_succeeded);
}

TEST(CliHelp, HelpWinsOverTheOtherFlagsOfTheCommand) {
  const auto r = run({"load", "--orders", "0", "--help"});
  EXPECT_EQ(r.status, exit_all_succeeded) << r.err;
  EXPECT_TRUE(r.out.starts_with("usage: idem-cli load ")) << r.out;
}

TEST(CliHelp, VersionPrintsTheProjectsVersion) {
  const auto r = run({"--version"});
  EXPECT_EQ(r.status, exit_all_succeeded);
  EXPECT_EQ(r.out, std::string("idem-cli ") + IDEM_VERSION_STRING + "\n");
  EXPECT_EQ(r.err, "");
}

TEST(CliHelp, NoCommandGetsAShortUsageNamingTheCommandsAndHelp) {
  const auto r = run({});
  EXPECT_EQ(r.status, exit_usage);
  EXPECT_EQ(r.out, "");
  EXPECT_TRUE(r.err.starts_with("idem-cli: missing command\n")) << r.err;
  EXPECT_LE(count_lines(r.err), 5u) << r.err;  // it was the whole manual: 77 lines
  for (const std::string& name : every_command) {
    EXPECT_NE(r.err.find(name), std::string::npos) << name << " in:\n" << r.err;
  }
  EXPECT_NE(r.err.find("idem-cli --help"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("idem-cli COMMAND --help"), std::string::npos) << r.err;
}

TEST(CliHelp, AnUnknownCommandGetsTheShortUsage) {
  const auto r = run({"frobnicate"});
  EXPECT_EQ(r.status, exit_usage);
  EXPECT_TRUE(r.err.starts_with("idem-cli: unknown command 'frobnicate'\n")) << r.err;
  EXPECT_LE(count_lines(r.err), 5u) << r.err;
}

TEST(CliHelp, AnUnknownFlagIsNamedWithAPointerToTheCommandsHelp) {
  const auto r = run({"conform", "--url", "http://h", "--token", "t", "--frobnicate", "1"});
  EXPECT_EQ(r.status, exit_usage);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "idem-cli: unknown flag --frobnicate\n"
            "'idem-cli conform --help' lists its flags.\n");
}

TEST(CliHelp, AFlagWithoutItsValueIsNamed) {
  const auto r = run({"load", "--url", "http://h", "--token", "t", "--orders"});
  EXPECT_EQ(r.status, exit_usage);
  EXPECT_TRUE(r.err.starts_with("idem-cli: --orders needs a value\n")) << r.err;
}

// An empty value given as --name= is that flag's value, never the next argument.
TEST(CliHelp, AnEmptyValueAfterTheEqualsSignIsNotTheNextArgument) {
  EXPECT_EQ(cli_test::usage_message({"load", "--url=", "--token", "t", "--orders", "1"}),
            "--url must not be empty");
}

}  // namespace
}  // namespace idem::cli
