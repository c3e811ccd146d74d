#pragma once
// The kernel timers this process has armed through timerfds (Linux): Boost.Asio's epoll reactor
// keeps every steady_timer of an io_context on one timerfd, so its state says whether the event
// loop will wake up although nothing is in flight, and when.

#include <optional>
#include <vector>

namespace idem::footprint {

struct timerfd_state {
  int fd = -1;
  /// Time left before it fires (/proc/self/fdinfo's it_value); nullopt while disarmed.
  std::optional<double> fires_in_seconds;
  double interval_seconds = 0;  ///< it_interval: 0 for a one-shot timer
};

/// Every timerfd open in this process.
[[nodiscard]] std::vector<timerfd_state> read_timerfds();

}  // namespace idem::footprint
