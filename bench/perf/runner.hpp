#pragma once
// Runs the plan for one build: every run on a fresh server, the clients alternating, each point
// repeated; progress on stderr.

#include <string>

#include "clients.hpp"
#include "results.hpp"
#include "scenarios.hpp"
#include "servers.hpp"

namespace perf {

/// One build to measure: its idem-cli and mock server (raw libcurl and the minimal server are
/// the harness's own and the same for every build).
struct variant {
  std::string name;
  client_setup clients;
  server_setup servers;
  /// An older build may refuse a point (its idem-cli took at most 4,096 in flight): skip the
  /// point, said on stderr and shown as n/a, instead of stopping the whole run. The current
  /// build must run every point.
  bool skip_refused_points = false;
};

class runner {
 public:
  runner(variant v, const plan& p) : v_(std::move(v)), plan_(p) {}

  /// Everything of the plan for this build.
  [[nodiscard]] variant_results run_all();

 private:
  sample one(client_kind kind, const point& at, load_shape shape);
  std::uint64_t calibrate(const point& at);
  point_result measure(point at);
  overshoot_result overshoot();
  journal_result journal(std::uint64_t requests);
  layers_result layers(std::uint64_t requests, const point_result* memory_point);
  // device_cost.cpp: what an intent costs the device, memory store and journal.
  device_cost_result device_cost();
  journal_open_result journal_open();
  // The least any SQLite journal spends per intent here, at 1, 16 and `observed` intents per
  // commit (the journal's own at the target's in-flight count; 0: not known).
  journal_floor_result journal_floor(double observed);

  variant v_;
  const plan& plan_;
};

}  // namespace perf
