#pragma once
/// @file
/// A client-wide retry budget (token bucket). It bounds what an outage can cost the server
/// without giving up on a server that still makes progress: each first attempt earns a token,
/// the bucket also trickles tokens over time, up to a reserve; each retry spends one. A retry that
/// finds the bucket empty waits for a token (within its deadline) instead of failing, unlike
/// gRPC's and the AWS SDKs' buckets, which give up.

#include <chrono>

namespace idem {

struct retry_budget_policy {
  double reserve = 100.0;           ///< bucket capacity; the bucket starts full
  double per_first_attempt = 1.0;   ///< tokens earned by each first attempt
  double trickle_per_second = 1.0;  ///< tokens added per second of (monotonic) time
};

}  // namespace idem
