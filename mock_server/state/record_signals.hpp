#pragma once
// Wakes requests that wait for an idempotency record to change (`Prefer: wait`, the original
// request of an execution): a waiter suspends on its own timer until a deadline, and a change to
// the record cancels the timers of everyone waiting on it. Waiters always re-read the record after
// waking, so a spurious wake-up is harmless.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

namespace idem::mock {

/// Single-threaded: use from the server's executor only.
class record_signals {
 public:
  /// Suspends until `notify(record_id)`, `notify_all()` or `deadline`, whichever comes first.
  boost::asio::awaitable<void> wait(std::int64_t record_id,
                                    std::chrono::steady_clock::time_point deadline);
  /// Wakes everyone waiting on this record.
  void notify(std::int64_t record_id);
  /// Wakes every waiter (the server clock moved, or the server is resetting).
  void notify_all();
  /// Records that someone waits on right now (each waiter removes itself when it wakes).
  [[nodiscard]] std::size_t waiting_records() const noexcept;

 private:
  void forget(std::int64_t record_id, const boost::asio::steady_timer* timer);

  std::map<std::int64_t, std::vector<std::weak_ptr<boost::asio::steady_timer>>> waiters_;
};

}  // namespace idem::mock
