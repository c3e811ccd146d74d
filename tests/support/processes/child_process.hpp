#pragma once
// Runs the built idem-mock-server binary to its end and captures what it prints: for tests of
// the command line itself (usage errors, exit codes), where `server_process` would wait in vain
// for the "listening on" line.

#include <chrono>
#include <string>
#include <vector>

namespace idem::kit {

/// How a child process ended and what it wrote.
struct finished_process {
  int wait_status = 0;     ///< as reported by waitpid (use WIFEXITED / WEXITSTATUS)
  std::string output;      ///< stdout and stderr, interleaved as written
  bool timed_out = false;  ///< it did not end within the limit and was SIGKILLed
};

/// Runs `idem-mock-server args...` with stdin closed and waits for it to exit, at most `limit`
/// (then it is killed and `timed_out` is set). Throws std::system_error if it cannot start.
[[nodiscard]] finished_process run_mock_server_to_exit(
    const std::vector<std::string>& args,
    std::chrono::milliseconds limit = std::chrono::seconds(30));

}  // namespace idem::kit
