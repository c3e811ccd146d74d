#pragma once
/// @file
/// How long to wait before the next retry of an intent: capped exponential backoff with jitter.
/// Policies are values; `backoff` holds the per-intent state (retry count, previous delay).

#include <chrono>
#include <cstdint>
#include <random>
#include <variant>

namespace idem {

/// Full jitter (the default): delay = uniform[0, min(cap, base * multiplier^(n-1))] for retry n.
/// Spreads retries the most; the mean wait is half of the exponential envelope.
struct full_jitter {
  std::chrono::milliseconds base{100};
  std::chrono::milliseconds cap{5000};
  double multiplier = 2.0;
};

/// Equal jitter: t = min(cap, base * multiplier^(n-1)); delay = t/2 + uniform[0, t/2].
/// Never waits less than half the envelope.
struct equal_jitter {
  std::chrono::milliseconds base{100};
  std::chrono::milliseconds cap{5000};
  double multiplier = 2.0;
};

/// Decorrelated jitter: delay = min(cap, uniform[base, previous * multiplier]), previous starting
/// at base. Grows from the last delay actually used rather than from the retry count.
struct decorrelated_jitter {
  std::chrono::milliseconds base{100};
  std::chrono::milliseconds cap{5000};
  double multiplier = 3.0;
};

using backoff_policy = std::variant<full_jitter, equal_jitter, decorrelated_jitter>;

/// The backoff state of one intent. Not thread-safe (one intent runs one retry loop).
/// Guarantees: every delay is in [0, cap] (equal jitter: [envelope/2, envelope]; decorrelated:
/// [min(base, cap), cap]); a non-positive base gives 0; multipliers below 1 are treated as 1;
/// no overflow however many retries.
class backoff {
 public:
  explicit backoff(backoff_policy policy = full_jitter{});
  /// The delay before the next retry, drawn from `rng`. Advances the retry count.
  [[nodiscard]] std::chrono::milliseconds next_delay(std::mt19937_64& rng);
  /// Retries drawn so far.
  [[nodiscard]] std::uint32_t retries() const noexcept { return retries_; }
  [[nodiscard]] const backoff_policy& policy() const noexcept { return policy_; }

 private:
  backoff_policy policy_;
  std::uint32_t retries_ = 0;
  std::chrono::milliseconds previous_{0};
};

}  // namespace idem
