#pragma once
// How often each thread of this process went to sleep, from /proc/self/task/*/status (Linux):
// a thread blocked in epoll_wait, a futex or read for a whole interval adds nothing there, so
// the difference of two readings counts the wake-ups in between without tracing anything.

#include <cstdint>
#include <string>
#include <vector>

namespace idem::footprint {

struct thread_switches {
  long tid = 0;
  std::string name;               ///< the thread's comm
  std::uint64_t voluntary = 0;    ///< times it blocked (each follows a wake-up but the first)
  std::uint64_t involuntary = 0;  ///< times it was preempted while running
};

/// Every thread of this process, by tid.
[[nodiscard]] std::vector<thread_switches> read_thread_switches();

}  // namespace idem::footprint
