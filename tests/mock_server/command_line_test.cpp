// The admin token could only be given with --admin-token, where any local user reads it in
// /proc/PID/cmdline (issue 43, item 3): it can come from a file or the environment too.
#include "mock_server/command_line.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "tests/support/temp_dir.hpp"

namespace idem::mock {
namespace {

using kit::temp_dir;

std::vector<std::string> command_line_with_db(std::vector<std::string> args) {
  args.insert(args.begin(), {"--db", ":memory:"});
  return args;
}

std::string command_line_error(const std::variant<command_line, std::string>& parsed) {
  const auto* error = std::get_if<std::string>(&parsed);
  return error != nullptr ? *error : std::string{"(no error)"};
}

std::string command_line_token(const std::variant<command_line, std::string>& parsed) {
  const auto* cmd = std::get_if<command_line>(&parsed);
  return cmd != nullptr ? cmd->options.admin_token : "(error: " + command_line_error(parsed) + ")";
}

std::string write_token_file(const temp_dir& dir, const std::string& name,
                             const std::string& text) {
  const auto path = dir.file(name);
  std::ofstream{path, std::ios::binary} << text;
  return path;
}

TEST(AdminTokenFile, TheTokenIsTheFilesOneLine) {
  temp_dir dir;
  EXPECT_EQ(command_line_token(parse_command_line(command_line_with_db(
                {"--admin-token-file", write_token_file(dir, "t", "s3cret\n")}))),
            "s3cret");
  EXPECT_EQ(command_line_token(parse_command_line(command_line_with_db(
                {"--admin-token-file", write_token_file(dir, "u", "s3cret\r\n")}))),
            "s3cret");
  EXPECT_EQ(command_line_token(parse_command_line(command_line_with_db(
                {"--admin-token-file", write_token_file(dir, "v", "no-newline")}))),
            "no-newline");
}

TEST(AdminTokenFile, AMissingEmptyOrMultiLineFileIsAClearError) {
  temp_dir dir;
  const auto missing = dir.file("missing");
  auto e =
      command_line_error(parse_command_line(command_line_with_db({"--admin-token-file", missing})));
  EXPECT_NE(e.find("--admin-token-file: cannot read '" + missing + "'"), std::string::npos) << e;

  const auto empty = write_token_file(dir, "empty", "\n");
  e = command_line_error(parse_command_line(command_line_with_db({"--admin-token-file", empty})));
  EXPECT_NE(e.find("is empty"), std::string::npos) << e;

  const auto two = write_token_file(dir, "two", "one\ntwo\n");
  e = command_line_error(parse_command_line(command_line_with_db({"--admin-token-file", two})));
  EXPECT_NE(e.find("one line"), std::string::npos) << e;

  e = command_line_error(
      parse_command_line(command_line_with_db({"--admin-token-file", dir.path().string()})));
  EXPECT_NE(e.find("cannot read"), std::string::npos) << e;
}

TEST(AdminTokenFile, OneSourceOnly) {
  temp_dir dir;
  const auto file = write_token_file(dir, "t", "from-file\n");
  auto e = command_line_error(
      parse_command_line(command_line_with_db({"--admin-token", "x", "--admin-token-file", file})));
  EXPECT_NE(e.find("not both"), std::string::npos) << e;
  e = command_line_error(parse_command_line(command_line_with_db({})));
  EXPECT_NE(e.find("--admin-token-file"), std::string::npos) << e;
  EXPECT_NE(e.find("IDEM_MOCK_ADMIN_TOKEN"), std::string::npos) << e;
}

TEST(AdminTokenEnvironment, TheVariableGivesTheTokenWhenNoFlagDoes) {
  const environment env{{"IDEM_MOCK_ADMIN_TOKEN", "from-env"}};
  EXPECT_EQ(command_line_token(parse_command_line(command_line_with_db({}), env)), "from-env");
  // A flag wins over the variable.
  EXPECT_EQ(command_line_token(
                parse_command_line(command_line_with_db({"--admin-token", "from-flag"}), env)),
            "from-flag");
  temp_dir dir;
  const auto file = write_token_file(dir, "t", "from-file\n");
  EXPECT_EQ(command_line_token(
                parse_command_line(command_line_with_db({"--admin-token-file", file}), env)),
            "from-file");
}

TEST(AdminTokenEnvironment, AVariableSetButEmptyIsAnError) {
  const environment env{{"IDEM_MOCK_ADMIN_TOKEN", ""}};
  const auto e = command_line_error(parse_command_line(command_line_with_db({}), env));
  EXPECT_NE(e.find("IDEM_MOCK_ADMIN_TOKEN is set but empty"), std::string::npos) << e;
}

}  // namespace
}  // namespace idem::mock
