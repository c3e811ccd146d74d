#pragma once
// How far behind the client's thread is at ending transfers, for the lookup's deadline.
//
// When a thousand writes run out together, the client ends them one after another: each end
// (closing the connection, classifying, deciding on the lookup, opening the lookup's
// connection) takes the one thread tens of microseconds, so the last are handled tens of
// milliseconds after they were due. The lookups they start end together as well, and the last
// of those would be reported after the deadline unless each keeps back the time the ends
// before it will take. This tracks that time: how many lookups are in flight, and how long one
// takes the thread, which is at least `least_per_lookup` and more when consecutive late ends
// show the thread slower than that.
// Touched on the client's strand only.

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <optional>

namespace idem::detail {

class end_backlog {
 public:
  using clock = std::chrono::steady_clock;

  /// A transfer that timed out was handled at `now`, `lateness` after it was due.
  void on_timed_out(clock::time_point now, clock::duration lateness);
  void lookup_started() noexcept { ++lookups_; }
  void lookup_ended() noexcept {
    if (lookups_ > 0) --lookups_;
  }

  /// What one lookup takes the client's thread at least: opening its connection and sending
  /// it, then ending it (closing the connection, reporting the outcome). Measured on loopback
  /// on the 2-core development machine with a thousand ending together (docs/PERFORMANCE.md,
  /// "Sixth round"): about 90 µs to start and 95 µs to end. The time between consecutive late
  /// ends does not show it: a transport ends a batch of transfers before their results are
  /// handled, and opens the lookups' connections after.
  static constexpr clock::duration least_per_lookup = std::chrono::microseconds{200};

  /// The time a lookup starting now keeps back before its deadline for the lookups already in
  /// flight: their number times what one takes the thread.
  [[nodiscard]] clock::duration margin() const noexcept {
    return std::max(per_end_, least_per_lookup) * static_cast<clock::rep>(lookups_);
  }
  /// The time one end takes while the thread is behind (0 until measured).
  [[nodiscard]] clock::duration per_end() const noexcept { return per_end_; }
  [[nodiscard]] std::size_t lookups() const noexcept { return lookups_; }

 private:
  std::optional<clock::time_point> last_late_end_;  // when the last late end was handled
  clock::duration per_end_{0};
  std::size_t lookups_ = 0;
};

}  // namespace idem::detail
