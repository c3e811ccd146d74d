#pragma once
// The command line of contract section 7:
//   idem-mock-server --listen 127.0.0.1:0 --db PATH
//                    (--admin-token-file PATH | --admin-token TOKEN) [--key-ttl 24h]
//                    [--lease 30s] [--faults FILE.json | preset:NAME] [--fault-seed N]
//                    [--async-after 2s]
//                    [--reaper-interval 5s] [--max-wait 10s] [--max-connections 1024]

#include <map>
#include <string>
#include <variant>
#include <vector>

#include "mock_server/state/server_options.hpp"

namespace idem::mock {

/// What the command line asks for: run with options, or print help.
struct command_line {
  server_options options;
  bool help = false;
};

/// Environment variables by name, as the command line reads them (main passes the process's own;
/// only IDEM_MOCK_ADMIN_TOKEN is read).
using environment = std::map<std::string, std::string, std::less<>>;

/// Parses argv[1..]. Returns the options or an error message naming the bad argument. Reads the
/// --faults file or expands the preset (a missing file, invalid rules or an unknown preset are
/// errors; the last lists the presets). The admin token comes from exactly one of
/// --admin-token-file and --admin-token, or else from IDEM_MOCK_ADMIN_TOKEN in `env`; a token
/// file that cannot be read, is empty or holds more than a token is an error, as is a variable
/// that is set but empty when no flag gives the token.
[[nodiscard]] std::variant<command_line, std::string> parse_command_line(
    const std::vector<std::string>& args, const environment& env = {});

/// The usage text printed by --help and after an error.
[[nodiscard]] std::string usage();

}  // namespace idem::mock
