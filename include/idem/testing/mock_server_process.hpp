#pragma once
/// @file
/// The real idem-mock-server as a child process of the test: on 127.0.0.1 and a free port, with
/// its database in a temporary directory that goes away with it. For crash tests it can be
/// killed (SIGKILL) and restarted on the same database and port.

#include <sys/types.h>

#include <cstdint>
#include <memory>
#include <string>

#include "idem/testing/mock_admin.hpp"
#include "idem/testing/mock_result.hpp"
#include "idem/testing/mock_server_options.hpp"

namespace idem::kit {

/// A running idem-mock-server owned by the test.
///
///     auto server = idem::kit::mock_server_process::start({.preset = "lost-responses"});
///     ASSERT_TRUE(server.ok()) << server;
///     options.base_url = server->url();
///     ...
///     EXPECT_TRUE(server->admin().check_invariants().ok());
///
/// start() waits for the server's "listening on" line (it is listening then); nothing in the
/// kit sleeps. The destructor kills a server that still runs (SIGKILL: a test's database is
/// thrown away) and removes the temporary directory; call stop() first for a graceful end.
/// Movable, not copyable. Thread-safety: not synchronised; admin() may be used from any thread
/// while no member that starts or ends the process runs.
class mock_server_process {
 public:
  /// Starts a server. Errors: server_not_found, invalid_options, temp_dir_failed,
  /// start_failed (the detail holds what the server wrote on stderr), start_timed_out.
  [[nodiscard]] static mock_result<mock_server_process> start(mock_server_options options = {});

  ~mock_server_process();
  mock_server_process(mock_server_process&&) noexcept;
  mock_server_process& operator=(mock_server_process&&) noexcept;
  mock_server_process(const mock_server_process&) = delete;
  mock_server_process& operator=(const mock_server_process&) = delete;

  /// The port it listens on (the same after a restart).
  [[nodiscard]] std::uint16_t port() const noexcept;
  /// "http://127.0.0.1:PORT", the base URL for idem::client_options.
  [[nodiscard]] std::string url() const;
  /// The admin API of this server, with its admin token.
  [[nodiscard]] const mock_admin& admin() const noexcept;
  [[nodiscard]] const std::string& admin_token() const noexcept;
  /// options.tenant_tokens[i]; an index past the end is a precondition violation (checked by
  /// std::vector::at, which throws).
  [[nodiscard]] const std::string& tenant_token(std::size_t i = 0) const;
  /// The SQLite file it runs on.
  [[nodiscard]] const std::string& db_path() const noexcept;
  /// Its stderr, appended to over every start (failures and stop messages only).
  [[nodiscard]] const std::string& log_path() const noexcept;
  /// The process id; -1 when it does not run.
  [[nodiscard]] pid_t pid() const noexcept;
  /// Whether it was started and not stopped or killed since. A server that ended on its own is
  /// noticed here too (it is reaped).
  [[nodiscard]] bool running();

  /// SIGTERM: in-flight requests finish, then it exits. Waits at most options.stop_timeout
  /// (then kills it). Errors: not_running, stop_failed (a non-zero exit, a signal, the timeout).
  mock_result<void> stop();
  /// SIGKILL, and waits for it to be gone: what a crash leaves in the database is what a
  /// restart finds. Errors: not_running.
  mock_result<void> kill();
  /// Starts it again with the same options, database and port (after stop() or kill(); a
  /// running server is killed first). Errors as start(); a port taken meanwhile is start_failed.
  mock_result<void> restart();

 private:
  struct state;
  explicit mock_server_process(std::unique_ptr<state> s);
  std::unique_ptr<state> s_;
};

}  // namespace idem::kit
