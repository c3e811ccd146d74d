#pragma once
// The client-wide retry budget's token bucket (the policy, public, is idem/retry_budget.hpp).
#include <chrono>
#include <mutex>
#include "idem/retry_budget.hpp"

namespace idem {

/// Thread-safe: one budget is shared by every intent of a client.
class retry_budget {
 public:
  using time_point = std::chrono::steady_clock::time_point;

  retry_budget(const retry_budget_policy& policy, time_point now);

  /// A first attempt was sent: earn `per_first_attempt` (capped at the reserve).
  void on_first_attempt(time_point now);
  /// Takes one token for a retry if there is one. True when taken.
  [[nodiscard]] bool try_spend(time_point now);
  /// How long until the trickle alone makes a whole token available (0 if one is available;
  /// effectively infinite — hours — if the trickle is 0).
  [[nodiscard]] std::chrono::milliseconds time_until_token(time_point now) const;
  /// Tokens available now (after applying the trickle).
  [[nodiscard]] double tokens(time_point now) const;

 private:
  void refill(time_point now) const;  // requires mutex_ held

  retry_budget_policy policy_;
  mutable std::mutex mutex_;
  mutable double tokens_;
  mutable time_point last_;
};

}  // namespace idem
