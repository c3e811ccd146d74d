#pragma once
// idem-mock-server as the soak runs it: on one database file and, after the first start, on one
// port, so that a server killed with SIGKILL comes back where the client looks for it.

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include "common/child_process.hpp"

namespace idem::soak {

struct mock_server_settings {
  std::string binary;
  std::string db_path;
  std::string admin_token;
  std::string log_path;                    ///< its stderr, appended to over every start
  std::chrono::milliseconds lease{3'000};  ///< short: a crashed execution is taken over soon
};

/// Not thread-safe.
class mock_server_process {
 public:
  explicit mock_server_process(mock_server_settings settings);

  /// Starts the server with the rules of `faults_file` (a --faults file; empty: none), on the
  /// port of the previous start if there was one, else on a free one. Waits for its
  /// "listening on" line; throws std::runtime_error if it does not come within 30 s.
  void start(const std::string& faults_file);
  /// SIGKILL, reaped: what a crash leaves on disk is what the next start finds.
  void kill();
  /// SIGTERM: in-flight requests finish, the database is closed cleanly (SIGKILL after a
  /// minute: hung).
  void stop();
  /// Whether it still runs; if it ended on its own, `how` says how.
  [[nodiscard]] bool running(std::string& how);

  [[nodiscard]] std::string url() const;
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

 private:
  mock_server_settings settings_;
  std::unique_ptr<common::child_process> child_;
  std::uint16_t port_ = 0;
};

}  // namespace idem::soak
