#pragma once
// A point in time plus a duration that may be "no limit": milliseconds::max() (or anything the
// clock cannot add) gives time_point::max(), never a wrap into the past. Private to the library;
// the deadline, the client's transfers and the transport's own due times all add this way.

#include <algorithm>
#include <chrono>

namespace idem::detail {

/// start + d, saturating at the clock's end. A negative d counts as 0.
inline std::chrono::steady_clock::time_point saturating_add(
    std::chrono::steady_clock::time_point start, std::chrono::milliseconds d) noexcept {
  using time_point = std::chrono::steady_clock::time_point;
  using clock_duration = time_point::duration;
  d = std::max(d, std::chrono::milliseconds{0});
  constexpr auto room_in_ms = std::chrono::floor<std::chrono::milliseconds>(clock_duration::max());
  if (d > room_in_ms) return time_point::max();
  const auto step = std::chrono::duration_cast<clock_duration>(d);  // fits: d <= room_in_ms
  if (start.time_since_epoch() > clock_duration::max() - step) return time_point::max();
  return start + step;
}

}  // namespace idem::detail
