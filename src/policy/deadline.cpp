#include "policy/deadline.hpp"

#include <algorithm>

#include "util/saturating_time.hpp"

namespace idem {
namespace {

using time_point = deadline::time_point;
using duration = deadline::duration;
using clock_duration = time_point::duration;

// Negative durations in a policy mean nothing useful; they count as 0.
duration non_negative(duration d) {
  return std::max(d, duration{0});
}

}  // namespace

deadline::deadline(time_point start, const deadline_policy& policy)
    : end_(detail::saturating_add(start, non_negative(policy.total))), policy_(policy) {
  // A short deadline keeps a share for the writes (deadline_policy::lookup_reserve): a reserve
  // of 3 s (the default) under a deadline of 3 s would leave no attempt at all.
  const duration total = non_negative(policy.total);
  const duration reserve = non_negative(policy_.lookup_reserve);
  const duration writes = std::max(total - reserve, std::min(total - total / 10, reserve));
  policy_.lookup_reserve = std::max(std::min(reserve, total - writes), duration{0});
  policy_.min_attempt = non_negative(policy_.min_attempt);
  policy_.attempt_timeout = non_negative(policy_.attempt_timeout);
}

deadline::duration deadline::left(time_point now) const noexcept {
  if (now >= end_) return duration{0};
  // end_ - now cannot be negative here, but it can exceed the clock's range when now is far
  // before the epoch and end_ far after it.
  const auto since = now.time_since_epoch();
  const auto until = end_.time_since_epoch();
  if (since < clock_duration::zero() && until > clock_duration::max() + since) {
    return std::chrono::floor<duration>(clock_duration::max());
  }
  // Rounded down: what is reported left is never more than what is really left.
  return std::chrono::floor<duration>(end_ - now);
}

deadline::duration deadline::left_for_attempts(time_point now) const noexcept {
  return std::max(left(now) - policy_.lookup_reserve, duration{0});
}

bool deadline::can_start_attempt(time_point now) const noexcept {
  const duration window = left_for_attempts(now);
  // An attempt with no time at all is pointless even when min_attempt is configured as 0.
  return window > duration{0} && window >= policy_.min_attempt;
}

deadline::duration deadline::attempt_timeout(time_point now) const noexcept {
  return std::min(policy_.attempt_timeout, left_for_attempts(now));
}

bool deadline::sleep_fits(duration wait, time_point now) const noexcept {
  wait = non_negative(wait);
  const duration window = left_for_attempts(now);
  // Same test as can_start_attempt(now + wait), without computing now + wait (which could
  // overflow for a huge wait).
  if (wait >= window) return false;
  return window - wait >= policy_.min_attempt;
}

deadline::duration deadline::shortest_useful() const noexcept {
  // A request with no time at all is pointless, whatever the policy says.
  return std::max(policy_.min_attempt, duration{1});
}

deadline::duration deadline::sleep_room(time_point now) const noexcept {
  return std::max(left_for_attempts(now) - shortest_useful(), duration{0});
}

deadline::duration deadline::shortest_lookup() const noexcept {
  // The reserve is kept for the lookup, and the writes' window ends where it begins: the
  // attempt that ran to that end is reported a little late (the transport's timer, the hop
  // back), so a reserve no longer than min_attempt would never be used at all. Up to half of a
  // reserve may go to that lag; no reserve (or 1 ms) gives the writes' own minimum.
  const duration half_reserve = policy_.lookup_reserve / 2;
  if (half_reserve <= duration{0}) return shortest_useful();
  return std::min(shortest_useful(), half_reserve);
}

bool deadline::can_start_lookup(time_point now) const noexcept {
  return left(now) >= shortest_lookup();
}

deadline::duration deadline::lookup_timeout(time_point now) const noexcept {
  return std::min(policy_.attempt_timeout, left(now));
}

deadline::duration deadline::lookup_sleep_room(time_point now) const noexcept {
  return std::max(left(now) - shortest_lookup(), duration{0});
}

deadline::duration deadline::trim_sleep(duration wait, time_point now) const noexcept {
  return std::min(non_negative(wait), left_for_attempts(now));
}

}  // namespace idem
