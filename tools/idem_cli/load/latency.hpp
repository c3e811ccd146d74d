#pragma once
// Latency percentiles of a load run.

#include <chrono>
#include <vector>

namespace idem::cli {

/// The `p`-th percentile (0 < p <= 100) by the nearest-rank method: the smallest sample such that
/// at least p% of the samples are at or below it. 0 for no samples. Sorts `samples` in place.
[[nodiscard]] std::chrono::microseconds percentile(std::vector<std::chrono::microseconds>& samples,
                                                   double p);

}  // namespace idem::cli
