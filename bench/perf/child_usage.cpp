#include "child_usage.hpp"

#include <chrono>

namespace perf {

child_usage usage_of(const idem::common::child_exit& end, std::string out) {
  return {.exit_status = end.signal() != 0 ? 128 + end.signal() : end.exit_code(),
          .wall_s = end.wall.count(),
          .cpu_s = end.cpu.count(),
          .max_rss_kib = end.max_rss_kib,
          .bytes_written = end.bytes_written,
          .out = std::move(out)};
}

idem::common::child_spec harness_child(const std::vector<std::string>& argv,
                                       const std::string& stderr_path, int cpu) {
  idem::common::child_spec spec{.program = argv.at(0),
                                .args = {argv.begin() + 1, argv.end()},
                                .stdin_null = false,
                                .stdout_to = idem::common::child_output::pipe(),
                                .stderr_to = idem::common::child_output::append_to(stderr_path)};
  if (cpu >= 0) spec.cpu = cpu;
  return spec;
}

child_usage run_to_end(const std::vector<std::string>& argv, const std::string& stderr_path,
                       int cpu) {
  idem::common::child_process child{harness_child(argv, stderr_path, cpu)};
  // A day: no run is that long; the bound only turns a hang into an end.
  if (!child.read_to_end(std::chrono::hours(24))) child.kill();
  const auto end = child.wait();
  return usage_of(end, child.take_stdout());
}

}  // namespace perf
