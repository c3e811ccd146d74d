#include "policy/backoff.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>

namespace idem {
namespace {

using std::chrono::milliseconds;
using rep = milliseconds::rep;

// Draws uniformly from [lo, hi] by rejection sampling on the raw 64-bit output. Unlike
// std::uniform_int_distribution, whose algorithm each standard library picks for itself, this
// gives the same delays for the same seed with every toolchain (mt19937_64's output is fixed by
// the standard), so a recorded seed replays the same waits anywhere.
rep uniform(std::mt19937_64& rng, rep lo, rep hi) {
  if (hi <= lo) return lo;
  const auto span = static_cast<std::uint64_t>(hi) - static_cast<std::uint64_t>(lo);  // hi - lo
  if (span == std::numeric_limits<std::uint64_t>::max()) {
    return static_cast<rep>(static_cast<std::uint64_t>(lo) + rng());
  }
  const std::uint64_t buckets = span + 1;
  // 2^64 mod buckets: the values below it would make the low buckets more likely.
  const std::uint64_t reject_below = (std::uint64_t{0} - buckets) % buckets;
  std::uint64_t r = rng();
  while (r < reject_below)
    r = rng();
  return static_cast<rep>(static_cast<std::uint64_t>(lo) + r % buckets);
}

// Multipliers below 1 (and NaN) would shrink the envelope or poison the arithmetic.
double sane_multiplier(double m) {
  return m >= 1.0 ? m : 1.0;
}

// min(cap, value) for a double that may be huge or infinite, converted without ever casting a
// double that does not fit into the integer type (that cast is undefined behaviour).
rep clamp_to(double value, rep cap) {
  if (!(value < static_cast<double>(cap))) return cap;
  return value <= 0.0 ? 0 : static_cast<rep>(value);
}

// min(cap, base * multiplier^(retry - 1)) for retry >= 1; base and cap are positive.
rep envelope(rep base, rep cap, double multiplier, std::uint32_t retry) {
  const double growth = std::pow(sane_multiplier(multiplier), static_cast<double>(retry - 1));
  return clamp_to(static_cast<double>(base) * growth, cap);
}

}  // namespace

backoff::backoff(backoff_policy policy) : policy_(policy) {}

std::chrono::milliseconds backoff::next_delay(std::mt19937_64& rng) {
  // Saturates rather than wrapping back to the first retry's short delay.
  if (retries_ < std::numeric_limits<std::uint32_t>::max()) ++retries_;
  const std::uint32_t retry = retries_;

  const milliseconds delay = std::visit(
      [&](const auto& p) -> milliseconds {
        const rep base = p.base.count();
        const rep cap = p.cap.count();
        if (base <= 0 || cap <= 0) return milliseconds{0};
        using policy_type = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<policy_type, full_jitter>) {
          return milliseconds{uniform(rng, 0, envelope(base, cap, p.multiplier, retry))};
        } else if constexpr (std::is_same_v<policy_type, equal_jitter>) {
          const rep t = envelope(base, cap, p.multiplier, retry);
          // The lower half rounds up so that the delay never falls below t/2.
          return milliseconds{uniform(rng, t - t / 2, t)};
        } else {
          static_assert(std::is_same_v<policy_type, decorrelated_jitter>);
          const rep previous = previous_.count() > 0 ? previous_.count() : base;
          // Draw from [base, previous * multiplier] and cap afterwards, as in the AWS
          // "Exponential Backoff and Jitter" formula. The upper bound is kept finite (2^62 ms,
          // far beyond any useful wait) so that a huge multiplier cannot overflow.
          constexpr rep draw_limit = rep{1} << 62;
          const rep hi =
              clamp_to(static_cast<double>(previous) * sane_multiplier(p.multiplier), draw_limit);
          return milliseconds{std::min(cap, uniform(rng, base, std::max(base, hi)))};
        }
      },
      policy_);

  previous_ = delay;
  return delay;
}

}  // namespace idem
