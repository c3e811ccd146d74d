#include "scenarios.hpp"

namespace perf {

plan default_plan(bool quick) {
  plan p;
  if (quick) {
    p.repetitions = 1;
    p.run_seconds = 0.5;
    p.device_requests = 500;
  }
  for (const server_kind server : {server_kind::minimal, server_kind::mock}) {
    for (const std::uint64_t c : {1u, 16u, 64u})
      p.points.push_back({.server = server, .concurrency = c, .delay = milliseconds{0}});
    for (const std::uint64_t c : {std::uint64_t{1'000}, max_cli_concurrency}) {
      p.points.push_back(
          {.server = server, .concurrency = c, .delay = milliseconds{500}, .requests = 2 * c});
    }
  }
  return p;
}

point memory_baseline(const point& p) {
  return {.server = server_kind::minimal,
          .concurrency = 1,
          .delay = milliseconds{0},
          .requests = p.requests};
}

}  // namespace perf
