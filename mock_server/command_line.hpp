#pragma once
// The command line of contract section 7 (`idem-mock-server --help` lists it), read by the
// programs' shared reader (common/command_line.hpp).

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "mock_server/state/server_options.hpp"

namespace idem::mock {

/// What the command line asks for: run with options, or print a text and exit
/// 0.
struct command_line {
  server_options options;
  std::string print{};  ///< --help, -h or --version: what to print on stdout
                        ///< instead of serving
};

/// Environment variables by name, as the command line reads them (main passes
/// the process's own; only IDEM_MOCK_ADMIN_TOKEN is read).
using environment = std::map<std::string, std::string, std::less<>>;

/// Parses argv[1..]: `--name value` or `--name=value`; a flag given again
/// replaces its value, but for --principal (repeatable). Returns the options or
/// an error message naming the bad argument. Reads the --faults file or expands
/// the preset (a missing file, invalid rules or an unknown preset are errors;
/// the last lists the presets). The admin token comes from exactly one of
/// --admin-token-file and --admin-token, or else from IDEM_MOCK_ADMIN_TOKEN in
/// `env`; a token file that cannot be read, is empty or holds more than a token
/// is an error, as is a variable that is set but empty when no flag gives the
/// token.
[[nodiscard]] std::variant<command_line, std::string> parse_command_line(
    const std::vector<std::string>& args, const environment& env = {});

/// The help printed by --help: the synopsis, every flag, the presets, the exit
/// statuses.
[[nodiscard]] std::string usage();

/// What follows a usage error: the synopsis and where the flags are listed.
[[nodiscard]] std::string short_usage();

}  // namespace idem::mock
