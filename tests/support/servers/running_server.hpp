#pragma once
// Test fixtures that run the mock server: in-process on its own thread (`running_server`), or as
// a real child process of the built binary (`server_process`, for kill -9 and signal tests).

#include <sys/types.h>

#include <boost/asio/io_context.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/child_process.hpp"
#include "mock_server/state/server_options.hpp"

namespace idem::mock {
class server;
}

namespace idem::kit {

inline constexpr const char* admin_token = "test-admin-token";

/// Options for a throwaway test server: 127.0.0.1:0, ":memory:", the test admin token.
[[nodiscard]] mock::server_options test_server_options();

/// The mock server in this process, on 127.0.0.1:0, run by one background thread. The
/// destructor shuts it down gracefully and joins the thread.
class running_server {
 public:
  explicit running_server(mock::server_options options = test_server_options());
  ~running_server();
  running_server(const running_server&) = delete;
  running_server& operator=(const running_server&) = delete;

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

 private:
  boost::asio::io_context io_{1};
  std::unique_ptr<mock::server> server_;
  std::thread thread_;
  std::uint16_t port_ = 0;
};

/// The built `idem-mock-server` binary as a child process (common/child_process.hpp). Starts it
/// with `args` and reads the port from its first stdout line. Its stderr is the test's, or the
/// file `stderr_path` (created or appended to) when one is given. The destructor SIGKILLs the
/// process if it still runs.
class server_process {
 public:
  /// `open_files`: the child's descriptor limit (RLIMIT_NOFILE, soft and hard); 0 inherits it.
  explicit server_process(std::vector<std::string> args, std::string stderr_path = {},
                          unsigned open_files = 0);
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  [[nodiscard]] pid_t pid() const noexcept { return child_.pid(); }
  /// Sends `signo` and waits for the process to end (SIGKILL after a minute: hung); returns
  /// its wait status (0 when it was stopped before).
  int stop(int signo);
  /// After stop(): what it wrote on stdout after its first line.
  [[nodiscard]] std::string rest_of_stdout();

 private:
  common::child_process child_;
  std::uint16_t port_ = 0;
};

}  // namespace idem::kit
