#pragma once
// Medians of repeated runs: every figure of the report is the median of its runs, each figure
// on its own (the run with the median throughput need not have the median CPU).

#include <cstdint>
#include <optional>
#include <vector>

#include "clients.hpp"

namespace perf {

/// The median (the mean of the middle two for an even count); 0 for none.
[[nodiscard]] double median(std::vector<double> values);

/// The medians of one client's runs at one point.
struct run_stats {
  std::size_t runs = 0;
  std::uint64_t requests = 0;  ///< per run
  double per_s = 0;
  double cpu_us = 0;         ///< client CPU per request
  double rss_kib = 0;        ///< client peak RSS
  double server_cpu_us = 0;  ///< server CPU per request
  double written_bytes = 0;  ///< client bytes sent to storage per request
  bool all_ok = true;        ///< every request of every run succeeded
};

[[nodiscard]] run_stats summarize(const std::vector<sample>& samples);

/// The lowest, the median and the highest of a ratio's values.
struct ratio_range {
  double low = 0;
  double median = 0;
  double high = 0;
};

/// The lowest, median and highest of a[i] / b[i] over the pairs where b[i] is not 0; nothing
/// when none.
[[nodiscard]] std::optional<ratio_range> pairwise_ratio_range(const std::vector<double>& a,
                                                              const std::vector<double>& b);

/// a / b, or nothing when either is missing or b is 0.
[[nodiscard]] std::optional<double> ratio(std::optional<double> a, std::optional<double> b);

}  // namespace perf
