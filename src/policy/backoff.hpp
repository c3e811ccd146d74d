#pragma once
// The backoff between retries, drawn from the policy (public: idem/backoff.hpp).
#include <chrono>
#include <cstdint>
#include <random>
#include "idem/backoff.hpp"

namespace idem {

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
