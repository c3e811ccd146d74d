#pragma once
// One program the harness runs (a client or a server): spawned with fork/exec, its stdout read
// through a pipe, reaped with wait4 so that its own CPU time and peak RSS are known.

#include <sys/types.h>

#include <chrono>
#include <string>
#include <vector>

namespace perf {

/// What the kernel says a finished child cost.
struct child_usage {
  int exit_status = -1;  ///< exit code, or 128 + signal
  double wall_s = 0;     ///< from spawn to reap
  double cpu_s = 0;      ///< user + system
  long max_rss_kib = 0;  ///< ru_maxrss
  std::string out;       ///< everything it wrote on stdout
};

/// A running child. Not copyable; the destructor kills (SIGKILL) and reaps one still running.
class child_process {
 public:
  /// Runs `argv[0]` (a path) with `argv`; stderr goes to `stderr_path` (appended), stdout to a
  /// pipe; on CPU `cpu` only, if it is not -1. Throws std::runtime_error when it cannot be
  /// started.
  child_process(const std::vector<std::string>& argv, const std::string& stderr_path, int cpu = -1);
  ~child_process();
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  /// The first line it writes on stdout (without the newline); throws if it ends first or
  /// nothing comes within `timeout`.
  std::string first_line(std::chrono::milliseconds timeout);
  /// Reads stdout to its end, then reaps the child.
  child_usage wait();
  /// SIGTERM, then reaps (SIGKILL after `grace`).
  child_usage stop(std::chrono::milliseconds grace = std::chrono::seconds{10});

 private:
  child_usage reap(bool block);

  pid_t pid_ = -1;
  int out_fd_ = -1;
  std::string out_;
  std::chrono::steady_clock::time_point started_;
};

/// Runs `argv` to its end (see child_process).
child_usage run_to_end(const std::vector<std::string>& argv, const std::string& stderr_path,
                       int cpu = -1);

}  // namespace perf
