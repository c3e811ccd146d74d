// idem-mock-server's flags and help as a table for the shared reader
// (common/command_line.hpp), and what their values mean.
#include "mock_server/command_line.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

#include "common/command_line.hpp"
#include "mock_server/admin/admin_token.hpp"
#include "mock_server/duration.hpp"
#include "mock_server/faults/fault_presets.hpp"
#include "mock_server/http/canonical_json.hpp"

namespace idem::mock {
namespace {

constexpr std::string_view preset_prefix = "preset:";

std::variant<fault_config, std::string> read_faults(const std::string& path) {
  if (path.starts_with(preset_prefix)) {
    auto preset = expand_fault_preset(std::string_view{path}.substr(preset_prefix.size()));
    if (auto* error = std::get_if<std::string>(&preset)) return "--faults: " + *error;
    return preset;
  }
  std::ifstream in{path, std::ios::binary};
  if (!in) return "--faults: cannot read '" + path + "'";
  std::stringstream text;
  text << in.rdbuf();
  auto json = parse_json(text.str());
  if (!json) return "--faults: '" + path + "' is not valid JSON";
  auto parsed = parse_fault_config(*json);
  if (auto* error = std::get_if<std::string>(&parsed)) return "--faults: " + *error;
  return std::get<fault_config>(std::move(parsed));
}

std::optional<std::string> parse_listen(const std::string& value, server_options& out) {
  auto colon = value.rfind(':');
  if (colon == std::string::npos || colon == 0) return "--listen: expected HOST:PORT";
  std::string host = value.substr(0, colon);
  if (host.size() > 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  unsigned port = 0;
  auto port_text = std::string_view{value}.substr(colon + 1);
  auto [end, ec] = std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
  if (ec != std::errc{} || end != port_text.data() + port_text.size() || port > 65535) {
    return "--listen: bad port '" + std::string{port_text} + "'";
  }
  out.host = host;
  out.port = static_cast<std::uint16_t>(port);
  return std::nullopt;
}

// A whole number from 1 to the largest std::size_t, nothing else (no sign, no
// suffix).
std::optional<std::string> parse_count(const std::string& flag, const std::string& value,
                                       std::size_t& out) {
  std::size_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc{} || end != value.data() + value.size() || n == 0) {
    return flag + ": expected a whole number of at least 1, not '" + value + "'";
  }
  out = n;
  return std::nullopt;
}

// A whole number from 0 to the largest std::uint64_t (a fault seed).
std::optional<std::string> parse_seed(const std::string& flag, const std::string& value,
                                      std::optional<std::uint64_t>& out) {
  std::uint64_t n = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), n);
  if (value.empty() || ec != std::errc{} || end != value.data() + value.size()) {
    return flag + ": expected a whole number from 0 to 2^64-1, not '" + value + "'";
  }
  out = n;
  return std::nullopt;
}

using common::flag;
using enum common::flag_kind;

// Every flag but --principal may be given again: the last value counts (as it always has).
common::program_spec mock_server_program() {
  std::vector<flag> flags{
      {"listen", "HOST:PORT", "address to bind (default 127.0.0.1:0, any free port)", last_wins},
      {"db", "PATH", "SQLite file (default ./idem-mock.db; ':memory:' for a throwaway run)",
       last_wins},
      {"admin-token-file", "PATH",
       "a file holding the bearer token for /_mock/* on one line\n"
       "(or set IDEM_MOCK_ADMIN_TOKEN; one of the three is required)",
       repeatable},
      {"admin-token", "TOKEN", "the token itself: any local user can read it in /proc", repeatable},
      {"key-ttl", "24h", "how long completed idempotency records are kept", last_wins},
      {"lease", "30s", "how long an executor owns a PROCESSING record", last_wins},
      {"faults", "FILE.json|preset:NAME",
       "initial fault rules: a file as PUT to /_mock/faults, or a preset", last_wins},
      {"fault-seed", "N", "the seed for --faults instead of its own (repeat a run, or vary it)",
       last_wins},
      {"async-after", "2s", "with Prefer: respond-async, answer 202 after this long", last_wins},
      {"reaper-interval", "5s", "how often expired records are purged", last_wins},
      {"completer-interval", "5s",
       "how often PROCESSING records whose lease expired are driven to\n"
       "their end without their client",
       last_wins},
      {"max-wait", "10s", "cap for Prefer: wait=N (at most 10s)", last_wins},
      {"max-connections", "1024",
       "connections served at once; one more is answered 503 with\nRetry-After and closed",
       last_wins},
      {"principal", "TOKEN=NAME",
       "the token acts as principal NAME, so that several tokens of one\n"
       "account share its keys (repeatable; PUT /_mock/principals\nreplaces them)",
       repeatable},
  };
  std::string footer =
      "Fault presets (--faults preset:NAME):\n  " + fault_preset_names() +
      ".\nDurations: 500ms, 30s, 24h, 1m30s; a bare number is seconds.\n"
      "The first line on stdout is 'listening on http://HOST:PORT'.\n\n"
      "exit status: 0 stopped by SIGINT or SIGTERM (in-flight requests finished);\n"
      "             1 could not start (e.g. the database in use) or failed;\n"
      "             2 usage error.";
  const std::string_view usage =
      "usage: idem-mock-server [--listen HOST:PORT] [--db PATH]\n"
      "                        (--admin-token-file PATH | --admin-token TOKEN) [FLAGS]";
  return common::program_of("idem-mock-server", IDEM_MOCK_SERVER_VERSION, usage, std::move(flags),
                            std::move(footer));
}

// The admin token from one flag, else from the environment.
std::optional<std::string> read_admin_token(const common::flag_values& flags,
                                            const environment& env, std::string& out) {
  if (flags.all("admin-token").size() + flags.all("admin-token-file").size() > 1) {
    return "give the admin token once: --admin-token-file or --admin-token, not both";
  }
  if (flags.has("admin-token-file")) {
    if (auto error = read_admin_token_file(flags.get("admin-token-file"), out)) return error;
  } else if (flags.has("admin-token")) {
    out = flags.get("admin-token");
  } else if (auto it = env.find(admin_token_variable); it != env.end()) {
    if (it->second.empty()) return std::string{admin_token_variable} + " is set but empty";
    out = it->second;
  }
  if (!out.empty()) return std::nullopt;
  return "an admin token is required: --admin-token-file PATH, the environment variable " +
         std::string{admin_token_variable} + ", or --admin-token TOKEN";
}

// The flags' values read into `out`; the first that is bad, as an error.
std::optional<std::string> read_values(const common::flag_values& flags, const environment& env,
                                       server_options& out) {
  if (flags.has("listen")) {
    if (auto error = parse_listen(flags.get("listen"), out)) return error;
  }
  if (flags.has("db")) out.db_path = flags.get("db");
  for (auto [name, target] : {std::pair{"key-ttl", &out.key_ttl},
                              {"lease", &out.lease},
                              {"async-after", &out.async_after},
                              {"reaper-interval", &out.reaper_interval},
                              {"completer-interval", &out.completer_interval},
                              {"max-wait", &out.max_wait}}) {
    if (!flags.has(name)) continue;
    const std::string value = flags.get(name);
    const auto d = parse_duration(value);
    if (!d)
      return "--" + std::string(name) + ": bad duration '" + value + "' (try 30s, 500ms, 24h)";
    *target = *d;
  }
  if (flags.has("max-connections")) {
    auto error =
        parse_count("--max-connections", flags.get("max-connections"), out.http.max_connections);
    if (error) return error;
  }
  if (flags.has("faults")) {
    auto faults = read_faults(flags.get("faults"));
    if (auto* e = std::get_if<std::string>(&faults)) return *e;
    out.faults = std::get<fault_config>(std::move(faults));
  }
  for (const std::string& value : flags.all("principal")) {
    const auto eq = value.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
      return "--principal: expected TOKEN=NAME";
    }
    out.principals[value.substr(0, eq)] = value.substr(eq + 1);
  }
  if (flags.has("fault-seed")) {
    std::optional<std::uint64_t> seed;
    if (auto error = parse_seed("--fault-seed", flags.get("fault-seed"), seed)) return error;
    if (!out.faults) return "--fault-seed: needs --faults";
    out.faults->seed = *seed;
  }
  if (auto error = read_admin_token(flags, env, out.admin_token)) return error;
  if (out.lease.count() <= 0) return "--lease must be positive";
  if (out.reaper_interval.count() <= 0) return "--reaper-interval must be positive";
  if (out.completer_interval.count() <= 0) return "--completer-interval must be positive";
  return std::nullopt;
}

}  // namespace

std::variant<command_line, std::string> parse_command_line(const std::vector<std::string>& args,
                                                           const environment& env) {
  auto read = common::parse_flags(mock_server_program(), args);
  if (auto* help = std::get_if<common::help_request>(&read)) {
    return command_line{.options = {}, .print = std::move(help->text)};
  }
  if (auto* error = std::get_if<common::usage_error>(&read)) return std::move(error->message);
  command_line out;
  if (auto error = read_values(std::get<common::parsed_flags>(read).values, env, out.options)) {
    return *error;
  }
  return out;
}

std::string usage() {
  return std::get<command_line>(parse_command_line({"--help"})).print;
}

std::string short_usage() {
  return common::usage_hint(mock_server_program());
}

}  // namespace idem::mock
