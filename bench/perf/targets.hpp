#pragma once
// The targets of issue 9, each checked against what was measured.

#include <optional>
#include <string>
#include <vector>

#include "results.hpp"

namespace perf {

/// One target: a measured value against a limit (at most, or at least).
struct target_check {
  std::string name;
  std::string limit_text;  ///< e.g. "≥ 0.95×"
  double limit = 0;
  bool at_least = true;
  std::string unit;                ///< "×", " ms", " B"
  std::optional<double> measured;  ///< the current build
  std::optional<double> before;    ///< the baseline build, if measured
  /// For a ratio of the two clients: its lowest, median (`measured`) and highest over the
  /// repetitions, each repetition's idem run against its raw libcurl run (the current build).
  std::optional<ratio_range> runs;
  [[nodiscard]] std::optional<bool> passes() const {
    if (!measured) return std::nullopt;
    return at_least ? *measured >= limit : *measured <= limit;
  }
};

/// The figures a mock server's creates/s is compared with: the faster client's at the target
/// in-flight count (0 if not measured).
[[nodiscard]] double mock_creates_per_s(const variant_results& v, std::uint64_t concurrency);

/// Every target, from the current build's results (and the baseline's, if any).
[[nodiscard]] std::vector<target_check> check_targets(const plan& p, const variant_results& now,
                                                      const variant_results* before,
                                                      const sqlite_result& sqlite);

/// "PASS", "MISS" or "n/a".
[[nodiscard]] std::string verdict(const target_check& t);

/// The value with its unit, "n/a" when missing (ratios with 2 decimals, ms with 2, bytes whole).
[[nodiscard]] std::string format_value(const std::optional<double>& v, const std::string& unit);

/// "1.06–1.14×", or "" when there is no range.
[[nodiscard]] std::string format_range(const std::optional<ratio_range>& r,
                                       const std::string& unit);

}  // namespace perf
