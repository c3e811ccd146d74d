#pragma once
/// @file
/// A client-wide retry budget (token bucket). It bounds what an outage can cost the server
/// without giving up on a server that still makes progress: each first attempt earns a token,
/// the bucket also trickles tokens over time, up to a reserve; each retry spends one. A retry that
/// finds the bucket empty waits for a token (within its deadline) instead of failing, unlike
/// gRPC's and the AWS SDKs' buckets, which give up.

#include <chrono>
#include <mutex>

namespace idem {

struct retry_budget_policy {
  double reserve = 100.0;           ///< bucket capacity; the bucket starts full
  double per_first_attempt = 1.0;   ///< tokens earned by each first attempt
  double trickle_per_second = 1.0;  ///< tokens added per second of (monotonic) time
};

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
