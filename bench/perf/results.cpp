#include "results.hpp"

#include <cmath>

namespace perf {

const point_result* find_point(const variant_results& v, server_kind server,
                               std::uint64_t concurrency) {
  for (const auto& p : v.points) {
    if (p.at.server == server && p.at.concurrency == concurrency) return &p;
  }
  return nullptr;
}

std::optional<memory_per_inflight> memory_at(const variant_results& v, const point_result& p) {
  if (p.at.concurrency <= 1) return std::nullopt;
  for (const auto& base : v.memory_baselines) {
    if (base.at.requests != p.at.requests) continue;
    const double c = static_cast<double>(p.at.concurrency);
    return memory_per_inflight{.idem_bytes = (p.idem.rss_kib - base.idem.rss_kib) * 1024 / c,
                               .raw_bytes = (p.raw.rss_kib - base.raw.rss_kib) * 1024 / c};
  }
  return std::nullopt;
}

const device_cost_row* device_cost_result::find(bool journal, std::uint64_t concurrency) const {
  for (const auto& r : rows)
    if (r.journal == journal && r.concurrency == concurrency) return &r;
  return nullptr;
}

const journal_floor_shape* journal_floor_result::at(double per_commit) const {
  for (const auto& s : shapes)
    if (std::lround(s.per_commit) == std::lround(per_commit)) return &s;
  return nullptr;
}

std::optional<double> layers_result::transport_bytes_per_inflight() const {
  if (memory_at.concurrency <= 1 || memory.runs == 0 || memory_baseline.runs == 0) {
    return std::nullopt;
  }
  return (memory.rss_kib - memory_baseline.rss_kib) * 1024 /
         static_cast<double>(memory_at.concurrency);
}

}  // namespace perf
