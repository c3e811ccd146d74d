#pragma once
// The idem-mock-server process itself: spawned with its stdout on a pipe (the "listening on"
// line is read from it) and its stderr appended to a file; signalled and reaped (private to the
// kit). Nothing here sleeps: reads and waits block on the pipe or on a pidfd, with a limit.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "idem/testing/mock_result.hpp"

namespace idem::kit::detail {

/// Movable, not copyable. The destructor kills and reaps a child that still runs.
class server_child {
 public:
  /// posix_spawn `binary args...` with stdin from /dev/null, stdout to a pipe and stderr
  /// appended to `stderr_path`. Errors: start_failed (with the reason).
  [[nodiscard]] static mock_result<server_child> spawn(const std::string& binary,
                                                       const std::vector<std::string>& args,
                                                       const std::string& stderr_path);
  ~server_child();
  server_child(server_child&& other) noexcept;
  server_child& operator=(server_child&& other) noexcept;
  server_child(const server_child&) = delete;
  server_child& operator=(const server_child&) = delete;

  /// The first line on its stdout, without the newline. Errors: start_failed (it closed its
  /// stdout first: it exited), start_timed_out.
  [[nodiscard]] mock_result<std::string> first_line(std::chrono::milliseconds limit);
  /// -1 once reaped.
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  /// Whether it still runs; reaps it (keeping its wait status) if it ended.
  [[nodiscard]] bool running();
  /// Sends `signo` if it still runs.
  void signal(int signo) noexcept;
  /// Waits for it to end, at most `limit`; its wait status, or nullopt when it still runs.
  [[nodiscard]] std::optional<int> wait_for(std::chrono::milliseconds limit);
  /// The wait status of a child that ended (as waitpid reports it).
  [[nodiscard]] std::optional<int> wait_status() const noexcept { return status_; }

 private:
  server_child(pid_t pid, int stdout_fd) : pid_(pid), stdout_fd_(stdout_fd) {}
  void reaped(int status) noexcept;
  void release() noexcept;

  pid_t pid_ = -1;
  int stdout_fd_ = -1;
  std::optional<int> status_;
};

/// "exited with status N" / "killed by signal N" for a wait status.
[[nodiscard]] std::string describe_wait_status(int status);

}  // namespace idem::kit::detail
