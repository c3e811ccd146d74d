#include "mock_server/command_line.hpp"

#include <charconv>
#include <fstream>
#include <sstream>

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

// A whole number from 1 to the largest std::size_t, nothing else (no sign, no suffix).
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

}  // namespace

std::string usage() {
  return "usage: idem-mock-server --listen HOST:PORT --db PATH\n"
         "                        (--admin-token-file PATH | --admin-token TOKEN)\n"
         "                        [--key-ttl 24h] [--lease 30s]\n"
         "                        [--faults FILE.json | --faults preset:NAME] [--fault-seed N]\n"
         "                        [--async-after 2s] [--reaper-interval 5s] [--max-wait 10s]\n"
         "                        [--completer-interval 5s]\n"
         "                        [--max-connections 1024] [--principal TOKEN=NAME ...]\n"
         "  --listen        address to bind (default 127.0.0.1:0, any free port)\n"
         "  --db            SQLite file (default ./idem-mock.db; ':memory:' for a throwaway run)\n"
         "  --admin-token-file  a file holding the bearer token for /_mock/* on one line\n"
         "                  (or set IDEM_MOCK_ADMIN_TOKEN; one of the three is required)\n"
         "  --admin-token   the token itself: any local user can read it in /proc\n"
         "  --key-ttl       how long completed idempotency records are kept\n"
         "  --lease         how long an executor owns a PROCESSING record\n"
         "  --faults        initial fault rules: a file as PUT to /_mock/faults, or preset:NAME\n"
         "                  for a named preset (" +
         fault_preset_names() +
         ")\n"
         "  --fault-seed    the seed for --faults instead of its own (repeat a run, or vary it)\n"
         "  --async-after   with Prefer: respond-async, answer 202 after this long\n"
         "  --reaper-interval  how often expired records are purged\n"
         "  --completer-interval  how often PROCESSING records whose lease expired are driven\n"
         "                  to their end without their client (default 5s)\n"
         "  --max-wait      cap for Prefer: wait=N (at most 10s)\n"
         "  --max-connections  connections served at once; one more is answered 503 with\n"
         "                  Retry-After and closed\n"
         "  --principal     TOKEN=NAME: the token acts as principal NAME, so that several\n"
         "                  tokens of one account share its keys (repeatable; PUT\n"
         "                  /_mock/principals replaces them)\n"
         "The first line on stdout is 'listening on http://HOST:PORT'.\n";
}

std::variant<command_line, std::string> parse_command_line(const std::vector<std::string>& args,
                                                           const environment& env) {
  command_line out;
  std::optional<std::uint64_t> fault_seed;
  int admin_token_flags = 0;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& flag = args[i];
    if (flag == "--help" || flag == "-h") {
      out.help = true;
      return out;
    }
    if (i + 1 >= args.size()) return flag + ": missing value (or unknown flag)";
    const std::string& value = args[++i];
    auto duration_flag = [&](std::chrono::milliseconds& target) -> std::optional<std::string> {
      auto d = parse_duration(value);
      if (!d) return flag + ": bad duration '" + value + "' (try 30s, 500ms, 24h)";
      target = *d;
      return std::nullopt;
    };
    std::optional<std::string> error;
    if (flag == "--listen") {
      error = parse_listen(value, out.options);
    } else if (flag == "--db") {
      out.options.db_path = value;
    } else if (flag == "--admin-token") {
      out.options.admin_token = value;
      ++admin_token_flags;
    } else if (flag == "--admin-token-file") {
      error = read_admin_token_file(value, out.options.admin_token);
      ++admin_token_flags;
    } else if (flag == "--key-ttl") {
      error = duration_flag(out.options.key_ttl);
    } else if (flag == "--lease") {
      error = duration_flag(out.options.lease);
    } else if (flag == "--async-after") {
      error = duration_flag(out.options.async_after);
    } else if (flag == "--reaper-interval") {
      error = duration_flag(out.options.reaper_interval);
    } else if (flag == "--completer-interval") {
      error = duration_flag(out.options.completer_interval);
    } else if (flag == "--max-wait") {
      error = duration_flag(out.options.max_wait);
    } else if (flag == "--max-connections") {
      error = parse_count(flag, value, out.options.http.max_connections);
    } else if (flag == "--faults") {
      auto faults = read_faults(value);
      if (auto* e = std::get_if<std::string>(&faults)) return *e;
      out.options.faults = std::get<fault_config>(std::move(faults));
    } else if (flag == "--principal") {
      const auto eq = value.find('=');
      if (eq == std::string::npos || eq == 0 || eq + 1 == value.size()) {
        return "--principal: expected TOKEN=NAME";
      }
      out.options.principals[value.substr(0, eq)] = value.substr(eq + 1);
    } else if (flag == "--fault-seed") {
      error = parse_seed(flag, value, fault_seed);
    } else {
      return "unknown flag '" + flag + "'";
    }
    if (error) return *error;
  }
  if (fault_seed) {
    if (!out.options.faults) return "--fault-seed: needs --faults";
    out.options.faults->seed = *fault_seed;
  }
  if (admin_token_flags > 1) {
    return "give the admin token once: --admin-token-file or --admin-token, not both";
  }
  if (admin_token_flags == 0) {
    if (auto it = env.find(admin_token_variable); it != env.end()) {
      if (it->second.empty()) return std::string{admin_token_variable} + " is set but empty";
      out.options.admin_token = it->second;
    }
  }
  if (out.options.admin_token.empty()) {
    return "an admin token is required: --admin-token-file PATH, the environment variable " +
           std::string{admin_token_variable} + ", or --admin-token TOKEN";
  }
  if (out.options.lease.count() <= 0) return "--lease must be positive";
  if (out.options.reaper_interval.count() <= 0) return "--reaper-interval must be positive";
  if (out.options.completer_interval.count() <= 0) {
    return "--completer-interval must be positive";
  }
  return out;
}

}  // namespace idem::mock
