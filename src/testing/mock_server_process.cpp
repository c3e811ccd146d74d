#include "idem/testing/mock_server_process.hpp"

#include <signal.h>

#include <charconv>
#include <fstream>
#include <optional>
#include <sstream>
#include <utility>

#include "common/child_process.hpp"
#include "common/temp_directory.hpp"
#include "idem/testing/find_mock_server.hpp"

namespace idem::kit {
namespace {

constexpr std::string_view listening_prefix = "listening on http://127.0.0.1:";

std::string millis(std::chrono::milliseconds d) {
  return std::to_string(d.count()) + "ms";
}

mock_result<void> check(const mock_server_options& o) {
  const auto invalid = [](std::string why) { return mock_error{mock_errc::invalid_options, why}; };
  if (!o.preset.empty() && o.faults) return invalid("give a preset or fault rules, not both");
  if (o.fault_seed && o.preset.empty() && !o.faults) {
    return invalid("fault_seed needs a preset or fault rules");
  }
  if (o.admin_token.empty()) return invalid("the admin token is empty");
  for (char c : o.admin_token) {
    // What the server takes from a token file (and a client can send as a bearer token).
    if (c < '!' || c > '~')
      return invalid("the admin token has a character other than visible ASCII");
  }
  for (const auto& t : o.tenant_tokens) {
    if (t.empty()) return invalid("a tenant token is empty");
    if (t == o.admin_token) return invalid("a tenant token is the admin token");
  }
  return {};
}

// The end of the server's stderr, for a start that failed.
std::string log_tail(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  // A usage error is followed by the whole usage text: the error is what matters.
  if (const auto usage = s.find("\n\nusage:"); usage != std::string::npos) s.resize(usage);
  constexpr std::size_t keep = 2000;
  if (s.size() > keep) s = "..." + s.substr(s.size() - keep);
  while (!s.empty() && s.back() == '\n')
    s.pop_back();
  return s.empty() ? std::string{} : "; its stderr: " + s;
}

std::optional<std::uint16_t> port_of(std::string_view line) {
  if (!line.starts_with(listening_prefix)) return std::nullopt;
  line.remove_prefix(listening_prefix.size());
  unsigned port = 0;
  const auto [end, ec] = std::from_chars(line.data(), line.data() + line.size(), port);
  if (ec != std::errc{} || end != line.data() + line.size() || port == 0 || port > 65535) {
    return std::nullopt;
  }
  return static_cast<std::uint16_t>(port);
}

}  // namespace

struct mock_server_process::state {
  state(mock_server_options o, std::string server, common::temp_directory d)
      : options(std::move(o)),
        binary(std::move(server)),
        dir(std::move(d)),
        db_path(options.db_path.empty() ? dir.file("mock.db") : options.db_path),
        log_path(dir.file("server.log")),
        token_path(dir.file("admin-token")),
        faults_path(options.faults ? dir.file("faults.json") : std::string{}) {}

  mock_server_options options;
  std::string binary;
  common::temp_directory dir;
  std::string db_path;
  std::string log_path;
  /// The admin token goes to the server in this file (in the kit's own directory), not on its
  /// command line, where any local user reads it in /proc/PID/cmdline.
  std::string token_path;
  std::string faults_path;
  std::uint16_t port = 0;  ///< 0 before the first start: any free port
  mock_admin admin{"", ""};
  /// Its stdout on a pipe (the "listening on" line), its stderr appended to log_path; empty
  /// when it does not run.
  common::child_process child;

  [[nodiscard]] std::vector<std::string> arguments() const {
    std::vector<std::string> args{
        "--listen", "127.0.0.1:" + std::to_string(port), "--db", db_path, "--admin-token-file",
        token_path};
    if (!options.preset.empty()) args.insert(args.end(), {"--faults", "preset:" + options.preset});
    if (options.faults) args.insert(args.end(), {"--faults", faults_path});
    if (options.fault_seed) {
      args.insert(args.end(), {"--fault-seed", std::to_string(*options.fault_seed)});
    }
    if (options.lease) args.insert(args.end(), {"--lease", millis(*options.lease)});
    if (options.key_ttl) args.insert(args.end(), {"--key-ttl", millis(*options.key_ttl)});
    for (const auto& [token, name] : options.principals)
      args.insert(args.end(), {"--principal", token + "=" + name});
    args.insert(args.end(), options.extra_args.begin(), options.extra_args.end());
    return args;
  }

  // Starts the child and reads its port; on failure nothing runs.
  mock_result<void> launch() {
    std::error_code ec;
    std::string what;
    auto c = common::child_process::start({.program = binary,
                                           .args = arguments(),
                                           .stdout_to = common::child_output::pipe(),
                                           .stderr_to = common::child_output::append_to(log_path)},
                                          ec, what);
    if (ec) return mock_error{mock_errc::start_failed, what + ": " + ec.message()};
    const auto line = c.read_line(options.start_timeout);
    if (!line) {
      mock_error e{mock_errc::start_timed_out,
                   "no address within " + std::to_string(options.start_timeout.count()) + " ms"};
      if (c.stdout_ended()) {
        const auto end = c.wait_for(std::chrono::seconds(5));
        e = mock_error{mock_errc::start_failed, "it " +
                                                    (end ? end->describe() : "closed its stdout") +
                                                    " before it printed its address"};
      }
      c = {};  // killed and reaped: what it wrote on stderr is all there
      e.detail += log_tail(log_path);
      return e;
    }
    const auto got = port_of(*line);
    if (!got) {
      return mock_error{mock_errc::start_failed, "unexpected first line '" + *line + "'"};
    }
    port = *got;
    admin = mock_admin{"http://127.0.0.1:" + std::to_string(port), options.admin_token};
    child = std::move(c);
    return {};
  }
};

mock_result<mock_server_process> mock_server_process::start(mock_server_options options) {
  if (auto valid = check(options); !valid) return valid.error();
  auto binary = find_mock_server(options.binary, options.package_server);
  if (!binary) return binary.error();
  std::error_code dir_error;
  auto dir = common::temp_directory::make("idem-mock-", dir_error);
  if (dir_error) {
    return mock_error{
        mock_errc::temp_dir_failed,
        "cannot make a folder idem-mock-XXXXXX in the temporary folder: " + dir_error.message()};
  }

  auto s = std::make_unique<state>(std::move(options), std::move(binary).value(), std::move(dir));
  {
    std::ofstream out{s->token_path, std::ios::binary};
    out << s->options.admin_token << '\n';
    if (!out.flush()) {
      return mock_error{mock_errc::temp_dir_failed, "cannot write " + s->token_path};
    }
  }
  if (s->options.faults) {
    std::ofstream out{s->faults_path, std::ios::binary};
    out << s->options.faults->to_json().dump(2) << '\n';
    if (!out.flush()) {
      return mock_error{mock_errc::temp_dir_failed, "cannot write " + s->faults_path};
    }
  }
  if (auto launched = s->launch(); !launched) return launched.error();
  return mock_server_process{std::move(s)};
}

mock_server_process::mock_server_process(std::unique_ptr<state> s) : s_(std::move(s)) {}
mock_server_process::~mock_server_process() = default;  // the child, then the directory
mock_server_process::mock_server_process(mock_server_process&&) noexcept = default;
mock_server_process& mock_server_process::operator=(mock_server_process&&) noexcept = default;

std::uint16_t mock_server_process::port() const noexcept {
  return s_->port;
}

std::string mock_server_process::url() const {
  return s_->admin.base_url();
}

const mock_admin& mock_server_process::admin() const noexcept {
  return s_->admin;
}

const std::string& mock_server_process::admin_token() const noexcept {
  return s_->options.admin_token;
}

const std::string& mock_server_process::tenant_token(std::size_t i) const {
  return s_->options.tenant_tokens.at(i);
}

const std::string& mock_server_process::db_path() const noexcept {
  return s_->db_path;
}

const std::string& mock_server_process::log_path() const noexcept {
  return s_->log_path;
}

pid_t mock_server_process::pid() const noexcept {
  return s_->child.pid();
}

bool mock_server_process::running() {
  if (s_->child.pid() > 0 && s_->child.poll()) s_->child = {};
  return s_->child.pid() > 0;
}

mock_result<void> mock_server_process::stop() {
  if (!running()) return mock_error{mock_errc::not_running, "stop()"};
  s_->child.signal(SIGTERM);
  const auto end = s_->child.wait_for(s_->options.stop_timeout);
  s_->child = {};  // kills and reaps one that did not end
  if (!end) {
    return mock_error{mock_errc::stop_failed, "no exit within " +
                                                  std::to_string(s_->options.stop_timeout.count()) +
                                                  " ms of SIGTERM; killed"};
  }
  if (end->exit_code() != 0) {
    return mock_error{mock_errc::stop_failed, end->describe() + log_tail(s_->log_path)};
  }
  return {};
}

mock_result<void> mock_server_process::kill() {
  if (!running()) return mock_error{mock_errc::not_running, "kill()"};
  s_->child = {};  // SIGKILL and reap
  return {};
}

mock_result<void> mock_server_process::restart() {
  s_->child = {};
  return s_->launch();
}

}  // namespace idem::kit
