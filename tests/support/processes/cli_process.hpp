#pragma once
// The built idem-cli binary as a child process, for the tests that need a real process: one
// killed at a crash point or at a random moment, two processes on one journal, one without
// root's privileges. Its stdout and stderr are captured separately.

#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/child_process.hpp"
#include "common/temp_directory.hpp"

namespace idem::kit {

/// How an idem-cli child ended and what it wrote.
struct cli_result {
  int wait_status = 0;     ///< as reported by waitpid
  std::string out;         ///< what it wrote on stdout
  std::string err;         ///< what it wrote on stderr
  bool timed_out = false;  ///< run_cli_to_exit: it did not end within the limit (SIGKILLed)

  /// Its exit status, or -1 if a signal ended it.
  [[nodiscard]] int exit_code() const noexcept;
  /// The signal that ended it, or 0 if it exited.
  [[nodiscard]] int signal() const noexcept;
  /// Everything it said, for failure messages.
  [[nodiscard]] std::string dump() const;
};

/// How to start the child.
struct cli_options {
  /// Set in the child's environment, on top of the test's own (IDEM_CLI_CRASH_AT is never
  /// inherited from the test; set it here).
  std::vector<std::pair<std::string, std::string>> env{};
  /// Run as nobody (setgid/setuid 65534 before exec), so that file modes bind even when the
  /// tests run as root. When nobody cannot reach the binary (a clone in root's home folder,
  /// 0700), a copy in a folder of the temp directory that anyone may enter is run instead.
  bool unprivileged = false;
  /// The program to run; empty: the built idem-cli.
  std::string binary{};
};

/// A running `idem-cli args...` with stdin closed (common/child_process.hpp). The destructor
/// SIGKILLs and reaps it if it still runs. Not thread-safe.
class cli_process {
 public:
  /// Starts it; throws std::system_error if it cannot.
  explicit cli_process(const std::vector<std::string>& args, const cli_options& options = {});

  [[nodiscard]] pid_t pid() const noexcept { return child_.pid(); }
  /// Collects its output until it exits, for at most `limit`: its result, or nullopt if it
  /// still runs then (what it wrote so far is kept for later).
  [[nodiscard]] std::optional<cli_result> wait_for(std::chrono::milliseconds limit);
  /// SIGKILLs it (if it still runs) and returns how it ended.
  cli_result kill();

 private:
  cli_result result(const common::child_exit& end);

  // The folder of the copy run for nobody (empty if none); removed after the process.
  common::temp_directory staged_;
  common::child_process child_;
};

/// The built idem-cli's path.
[[nodiscard]] std::string idem_cli_binary();

/// Runs `idem-cli args...` to its end, at most `limit` (then it is killed and `timed_out` set).
[[nodiscard]] cli_result run_cli_to_exit(
    const std::vector<std::string>& args, const cli_options& options = {},
    std::chrono::milliseconds limit = std::chrono::seconds(60));

}  // namespace idem::kit
