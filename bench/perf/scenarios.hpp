#pragma once
// What the harness measures: the points (server, requests in flight, server delay), the
// experiments beside them (memory baselines, deadline overshoot, the journal's cost) and their
// sizes. Changing what is measured is changing this file.

#include <chrono>
#include <cstdint>
#include <vector>

#include "servers.hpp"

namespace perf {

using std::chrono::milliseconds;

/// The largest point: issue 9's 5,000 intents in flight.
inline constexpr std::uint64_t max_cli_concurrency = 5'000;

/// One throughput point: both clients, the same requests, the same server.
struct point {
  server_kind server = server_kind::minimal;
  std::uint64_t concurrency = 1;
  /// Server-side delay per create; what holds 1,000 and 5,000 requests in flight.
  milliseconds delay{0};
  /// Requests per run; 0: calibrated so that a run takes about `run_seconds`.
  std::uint64_t requests = 0;
};

struct plan {
  int repetitions = 5;     ///< runs per client and point (the median is reported); three
                           ///< were too few on a shared 2-core VM to rank two builds
  double run_seconds = 2;  ///< what calibrated runs aim at
  std::vector<point> points;
  /// The deadline overshoot run: every request delayed past the deadline.
  milliseconds overshoot_deadline{1'000};
  milliseconds overshoot_delay{5'000};
  std::uint64_t overshoot_concurrency = 1'000;
  /// The in-flight count the memory target is checked at.
  std::uint64_t memory_concurrency = max_cli_concurrency;
  /// The in-flight count of the throughput, CPU and journal targets.
  std::uint64_t target_concurrency = 16;
  /// Intents per run of the device-cost table (each of its four rows).
  std::uint64_t device_requests = 2'000;
};

/// For each server, 1, 16 and 64 in flight answered at once (calibrated), and 1,000 and
/// max_cli_concurrency held in flight by a 500 ms delay (two waves each). `quick`: one
/// repetition, shorter runs, for trying the harness out.
[[nodiscard]] plan default_plan(bool quick);

/// The C = 1 run a point's peak RSS per in-flight request is measured against: the same number
/// of requests (the client's plan holds every intent, so RSS grows with the count as well),
/// against the minimal server without delay.
[[nodiscard]] point memory_baseline(const point& p);

}  // namespace perf
