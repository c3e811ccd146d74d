#pragma once
// A program the soak runs (idem-cli, idem-mock-server) as a child process: its output goes to
// log files in the work directory, it can be SIGKILLed at any moment, and its end is noticed
// without blocking.

#include <sys/types.h>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

namespace idem::soak {

struct child_spec {
  std::string program;
  std::vector<std::string> args{};
  std::string stdout_path{};  ///< appended to; empty: /dev/null
  std::string stderr_path{};  ///< appended to; empty: /dev/null
  /// Instead of stdout_path: a pipe, for read_line (the mock server's "listening on" line).
  bool stdout_pipe = false;
};

/// A running child. The destructor SIGKILLs and reaps it if it still runs. Not thread-safe.
class child_process {
 public:
  /// Starts it; throws std::runtime_error if it cannot.
  explicit child_process(const child_spec& spec);
  ~child_process();
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  [[nodiscard]] pid_t pid() const noexcept { return pid_; }
  /// Its wait status if it has ended (reaped then), else nullopt; never blocks.
  [[nodiscard]] std::optional<int> poll();
  /// Waits for it to end; its wait status.
  int wait();
  /// Sends `signo` and waits for it to end; its wait status (or the earlier one if it had
  /// ended already).
  int stop(int signo);
  /// The next line of its stdout pipe, waiting at most `limit`; nullopt on timeout or EOF.
  [[nodiscard]] std::optional<std::string> read_line(std::chrono::milliseconds limit);

 private:
  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::optional<int> status_;
};

/// "exit 3", "killed by signal 9": a wait status in words.
[[nodiscard]] std::string describe_wait_status(int status);

}  // namespace idem::soak
