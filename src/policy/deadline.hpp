#pragma once
// The deadline's arithmetic (the policy, public, is idem/deadline.hpp): what the retry loop asks
// before each attempt, sleep and lookup.
#include <chrono>
#include "idem/deadline.hpp"

namespace idem {

/// Pure arithmetic on steady_clock time points; the caller passes `now` (so tests use virtual
/// time). A value type; not synchronised.
class deadline {
 public:
  using time_point = std::chrono::steady_clock::time_point;
  using duration = std::chrono::milliseconds;

  deadline(time_point start, const deadline_policy& policy);

  [[nodiscard]] time_point expires_at() const noexcept { return end_; }
  /// Time left until the end (0 once passed).
  [[nodiscard]] duration left(time_point now) const noexcept;
  /// Time left for writes: left() minus the lookup reserve (0 if negative).
  [[nodiscard]] duration left_for_attempts(time_point now) const noexcept;
  /// An attempt may start: left_for_attempts(now) >= min_attempt.
  [[nodiscard]] bool can_start_attempt(time_point now) const noexcept;
  /// The timeout for an attempt starting now: min(attempt_timeout, left_for_attempts(now)).
  [[nodiscard]] duration attempt_timeout(time_point now) const noexcept;
  /// Whether sleeping `wait` from `now` still leaves room to start an attempt afterwards.
  [[nodiscard]] bool sleep_fits(duration wait, time_point now) const noexcept;
  /// The longest sleep after which an attempt can still start (0: none fits). Never back to back:
  /// an attempt needs at least max(min_attempt, 1 ms).
  [[nodiscard]] duration sleep_room(time_point now) const noexcept;
  /// A lookup may start: left(now) >= max(min_attempt, 1 ms), or >= half the lookup reserve
  /// when that is less (so that a reserve no longer than min_attempt is still used by the lookup
  /// after an attempt that ran to the end of the writes' window and was reported late). The
  /// lookup may use the reserve.
  [[nodiscard]] bool can_start_lookup(time_point now) const noexcept;
  /// The timeout for a lookup starting now: min(attempt_timeout, left(now)).
  [[nodiscard]] duration lookup_timeout(time_point now) const noexcept;
  /// The longest sleep after which a lookup can still start (0: none fits), by the same rule as
  /// can_start_lookup().
  [[nodiscard]] duration lookup_sleep_room(time_point now) const noexcept;
  /// `wait` trimmed so that it ends no later than the end of the attempt window.
  [[nodiscard]] duration trim_sleep(duration wait, time_point now) const noexcept;
  [[nodiscard]] bool expired(time_point now) const noexcept { return now >= end_; }
  /// The reserve this deadline keeps for the lookup: `policy.lookup_reserve`, less what the
  /// writes need to get min(lookup_reserve, total * 9 / 10) (see deadline_policy).
  [[nodiscard]] duration lookup_reserve() const noexcept { return policy_.lookup_reserve; }

 private:
  [[nodiscard]] duration shortest_useful() const noexcept;
  [[nodiscard]] duration shortest_lookup() const noexcept;

  time_point end_;
  deadline_policy policy_;
};

}  // namespace idem
