#pragma once
// What the harness found, as the report reads it.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "scenarios.hpp"
#include "stats.hpp"

namespace perf {

/// Both clients at one point.
struct point_result {
  point at;
  run_stats idem;
  run_stats raw;
  // Each repetition's idem run against the raw libcurl run next to it: the median of these pairs
  // is what a ratio target reads (targets.cpp), their lowest and highest how far one pair moves.
  std::optional<ratio_range> throughput_runs;  ///< idem / raw req/s, per repetition
  std::optional<ratio_range> cpu_runs;         ///< idem / raw CPU per request, per repetition
};

/// idem-cli load with every request delayed past the deadline: end minus deadline per intent
/// (medians over the runs of each run's percentiles). Not available from an idem-cli that does
/// not report it.
struct overshoot_result {
  bool available = false;
  std::uint64_t intents = 0;  ///< per run
  double p50_ms = 0;
  double p99_ms = 0;
  double max_ms = 0;
};

/// idem-cli load with and without --journal, the same requests against the minimal server.
struct journal_result {
  run_stats without;
  run_stats with;
};

/// Raw libcurl, idem's transport alone, an intent layer's floor (idem_floor_load) and idem-cli
/// load, the same requests against the minimal server, alternating: how much of idem's cost is
/// the transport's, how much any intent layer's and how much idem's own bookkeeping. Measured for
/// the current build only (`measured` false otherwise).
struct layers_result {
  bool measured = false;
  run_stats raw;
  run_stats transport;
  run_stats floor;
  run_stats idem;
  /// The transport alone at the memory target's point (minimal server, delayed) and at its C = 1
  /// baseline, for its peak RSS per request in flight; `memory_at` is that point (C = 0: not
  /// measured).
  point memory_at{};
  run_stats memory;
  run_stats memory_baseline;
  [[nodiscard]] std::optional<double> transport_bytes_per_inflight() const;
};

/// What an intent costs the device (issue 47): `idem-cli load` with the memory store and with
/// the journal, at 1 and at the target's in-flight count, against the minimal server. CPU and
/// bytes written are the medians of the repetitions; the fsync-family calls are counted in one
/// more run under strace. Measured for the current build only.
struct device_cost_row {
  bool journal = false;
  std::uint64_t concurrency = 1;
  run_stats stats;
  std::optional<double> syncs_per_intent;  ///< nothing when strace is not installed
};
struct device_cost_result {
  bool measured = false;
  std::vector<device_cost_row> rows;
  [[nodiscard]] const device_cost_row* find(bool journal, std::uint64_t concurrency) const;
};

/// idem_journal_open's figures (current build only): opening a journal of `final_intents`
/// final and `open_intents` open intents after a clean close, and after a process that held it
/// died (the full check).
struct journal_open_result {
  bool measured = false;
  std::uint64_t final_intents = 0;
  std::uint64_t open_intents = 0;
  std::uint64_t file_bytes = 0;
  int repetitions = 0;
  double clean_ms = 0;  ///< median
  double clean_max_ms = 0;
  double unclean_ms = 0;  ///< median
};

/// idem_journal_floor's figures (current build only): raw SQLite doing only what write-ahead
/// needs per intent, `per_commit` intents to a commit, with durability full and with no flush.
struct journal_floor_shape {
  double per_commit = 0;
  double full_cpu_us = 0;     ///< CPU µs per intent, synchronous = FULL (one fdatasync a commit)
  double off_cpu_us = 0;      ///< the same with synchronous = OFF: SQLite's own work
  double commit_wall_us = 0;  ///< wall µs per commit with FULL
};
struct journal_floor_result {
  bool measured = false;
  std::uint64_t intents = 0;
  int repetitions = 0;
  std::vector<journal_floor_shape> shapes;
  /// The shape measured at `per_commit` (rounded), if any.
  [[nodiscard]] const journal_floor_shape* at(double per_commit) const;
};

/// One build's figures (the current one, or the baseline given with --before-*).
struct variant_results {
  std::string name;
  std::vector<point_result> points;
  std::vector<point_result> memory_baselines;  ///< C = 1, as many requests as a delayed point
  overshoot_result overshoot;
  journal_result journal;
  layers_result layers;
  device_cost_result device_cost;
  journal_open_result journal_open;
  journal_floor_result journal_floor;
};

/// idem_sqlite_pattern's rates.
struct sqlite_result {
  bool available = false;
  double one_txn_per_s = 0;
  double server_split_per_s = 0;
  std::string version;
};

/// Bytes of peak RSS per request in flight at `p` over its C = 1 baseline, for idem and raw.
struct memory_per_inflight {
  double idem_bytes = 0;
  double raw_bytes = 0;
  [[nodiscard]] double extra() const { return idem_bytes - raw_bytes; }
};

/// The figures of `v` at `p`, if it was measured (and its baseline, for memory).
[[nodiscard]] const point_result* find_point(const variant_results& v, server_kind server,
                                             std::uint64_t concurrency);
[[nodiscard]] std::optional<memory_per_inflight> memory_at(const variant_results& v,
                                                           const point_result& p);

}  // namespace perf
