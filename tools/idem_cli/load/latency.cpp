#include "idem_cli/load/latency.hpp"

#include <algorithm>
#include <cmath>

namespace idem::cli {

std::chrono::microseconds percentile(std::vector<std::chrono::microseconds>& samples, double p) {
  if (samples.empty()) return std::chrono::microseconds{0};
  std::sort(samples.begin(), samples.end());
  const double rank = std::ceil(p / 100.0 * static_cast<double>(samples.size()));
  const auto index = static_cast<std::size_t>(std::clamp(rank, 1.0, double(samples.size()))) - 1;
  return samples[index];
}

}  // namespace idem::cli
