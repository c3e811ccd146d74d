#pragma once
// What the harness reads from a program it runs (a client or a server, started by the tree's
// child-process helper, common/child_process.hpp): its exit, its own CPU time and peak RSS as
// wait4 reports them, and its stdout.

#include <cstdint>
#include <string>
#include <vector>

#include "common/child_process.hpp"

namespace perf {

/// What the kernel says a finished child cost.
struct child_usage {
  int exit_status = -1;             ///< exit code, or 128 + signal
  double wall_s = 0;                ///< from spawn to reap
  double cpu_s = 0;                 ///< user + system
  long max_rss_kib = 0;             ///< ru_maxrss
  std::uint64_t bytes_written = 0;  ///< sent to storage (common::child_exit::bytes_written)
  std::string out;                  ///< what it wrote on stdout (that was not read as a line)
};

/// The figures of a child that ended, with `out`.
[[nodiscard]] child_usage usage_of(const idem::common::child_exit& end, std::string out);

/// `argv[0]` (a path) with `argv`: stdout on a pipe, stderr appended to `stderr_path`, on CPU
/// `cpu` only if it is not -1.
[[nodiscard]] idem::common::child_spec harness_child(const std::vector<std::string>& argv,
                                                     const std::string& stderr_path, int cpu = -1);

/// Runs `argv` (see harness_child) to its end; throws std::system_error when it cannot start.
child_usage run_to_end(const std::vector<std::string>& argv, const std::string& stderr_path,
                       int cpu = -1);

}  // namespace perf
