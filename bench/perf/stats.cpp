#include "stats.hpp"

#include <algorithm>

namespace perf {

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const std::size_t mid = values.size() / 2;
  return values.size() % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
}

run_stats summarize(const std::vector<sample>& samples) {
  run_stats out;
  out.runs = samples.size();
  std::vector<double> per_s, cpu, rss, server, written;
  for (const auto& s : samples) {
    out.requests = s.requests;
    per_s.push_back(s.per_s());
    cpu.push_back(s.cpu_us_per_request());
    rss.push_back(static_cast<double>(s.max_rss_kib));
    server.push_back(s.requests > 0 ? s.server_cpu_s * 1e6 / static_cast<double>(s.requests) : 0);
    written.push_back(s.requests > 0
                          ? static_cast<double>(s.bytes_written) / static_cast<double>(s.requests)
                          : 0);
    if (s.ok != s.requests) out.all_ok = false;
  }
  out.per_s = median(per_s);
  out.cpu_us = median(cpu);
  out.rss_kib = median(rss);
  out.server_cpu_us = median(server);
  out.written_bytes = median(written);
  return out;
}

std::optional<ratio_range> pairwise_ratio_range(const std::vector<double>& a,
                                                const std::vector<double>& b) {
  std::vector<double> ratios;
  for (std::size_t i = 0; i < std::min(a.size(), b.size()); ++i) {
    if (b[i] != 0) ratios.push_back(a[i] / b[i]);
  }
  if (ratios.empty()) return std::nullopt;
  const auto [low, high] = std::minmax_element(ratios.begin(), ratios.end());
  return ratio_range{.low = *low, .median = median(ratios), .high = *high};
}

std::optional<double> ratio(std::optional<double> a, std::optional<double> b) {
  if (!a || !b || *b == 0) return std::nullopt;
  return *a / *b;
}

}  // namespace perf
