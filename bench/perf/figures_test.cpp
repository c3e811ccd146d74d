// The harness's figures from synthetic runs: paired ratios and the ratio targets' verdicts
// (targets.cpp). No program is run.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "results.hpp"
#include "stats.hpp"
#include "targets.hpp"

namespace perf {
namespace {

constexpr const char* cpu_at_minimal = "CPU per intent idem / raw libcurl, minimal server";
constexpr const char* throughput_at_minimal = "throughput idem / raw libcurl, minimal server";

const target_check& find_target(const std::vector<target_check>& all, const std::string& prefix) {
  for (const auto& t : all) {
    if (t.name.rfind(prefix, 0) == 0) return t;
  }
  throw std::runtime_error("no target " + prefix);
}

// The target point (minimal server, 16 in flight) with each repetition's CPU per request and
// req/s of idem and of raw libcurl, repetition i's two runs next to each other.
variant_results at_target_point(const std::vector<double>& idem_cpu,
                                const std::vector<double>& raw_cpu, bool paired = true) {
  std::vector<double> idem_per_s, raw_per_s;
  for (double c : idem_cpu)
    idem_per_s.push_back(1e6 / c);
  for (double c : raw_cpu)
    raw_per_s.push_back(1e6 / c);
  point_result p;
  p.at.server = server_kind::minimal;
  p.at.concurrency = 16;
  p.idem.runs = idem_cpu.size();
  p.idem.per_s = median(idem_per_s);
  p.idem.cpu_us = median(idem_cpu);
  p.raw.runs = raw_cpu.size();
  p.raw.per_s = median(raw_per_s);
  p.raw.cpu_us = median(raw_cpu);
  if (paired) {
    p.cpu_runs = pairwise_ratio_range(idem_cpu, raw_cpu);
    p.throughput_runs = pairwise_ratio_range(idem_per_s, raw_per_s);
  }
  variant_results v;
  v.points.push_back(p);
  return v;
}

TEST(PairwiseRatioRange, GivesTheLowestMedianAndHighestOfThePairs) {
  const auto r = pairwise_ratio_range({2, 3, 4, 10}, {1, 2, 0, 5});
  ASSERT_TRUE(r.has_value());
  // The pair with a zero divisor is left out: 2, 1.5, 2.
  EXPECT_DOUBLE_EQ(r->low, 1.5);
  EXPECT_DOUBLE_EQ(r->median, 2);
  EXPECT_DOUBLE_EQ(r->high, 2);
  EXPECT_FALSE(pairwise_ratio_range({1}, {0}).has_value());
  EXPECT_FALSE(pairwise_ratio_range({}, {}).has_value());
}

// The host changes speed between repetitions: raw libcurl's slow runs outnumber idem's, so the
// ratio of the two medians (30 / 40 = 0.75x) says idem costs less, where every repetition but
// one has idem 12-15 % above the raw libcurl run next to it.
TEST(RatioTargets, ReadTheMedianOfThePairedRatiosNotTheRatioOfTheMedians) {
  const auto v = at_target_point({30, 30, 30, 45, 45}, {26, 26, 40, 40, 40});
  const auto all = check_targets(plan{}, v, nullptr, sqlite_result{});

  const auto& cpu = find_target(all, cpu_at_minimal);
  ASSERT_TRUE(cpu.measured.has_value());
  EXPECT_NEAR(*cpu.measured, 1.125, 1e-9);  // pairs 1.154, 1.154, 0.75, 1.125, 1.125
  EXPECT_EQ(verdict(cpu), "PASS");          // the guard of issue 47: at most 1.15x
  ASSERT_TRUE(cpu.runs.has_value());
  EXPECT_NEAR(cpu.runs->low, 0.75, 1e-9);

  const auto& throughput = find_target(all, throughput_at_minimal);
  ASSERT_TRUE(throughput.measured.has_value());
  EXPECT_NEAR(*throughput.measured, 40.0 / 45.0, 1e-9);
  EXPECT_EQ(verdict(throughput), "PASS");  // at least 0.85x
}

TEST(RatioTargets, ReadTheRatioOfTheMediansWithoutPairs) {
  const auto v = at_target_point({30, 30, 30, 45, 45}, {26, 26, 40, 40, 40}, /*paired=*/false);
  const auto all = check_targets(plan{}, v, nullptr, sqlite_result{});
  const auto& cpu = find_target(all, cpu_at_minimal);
  ASSERT_TRUE(cpu.measured.has_value());
  EXPECT_NEAR(*cpu.measured, 0.75, 1e-9);
  EXPECT_FALSE(cpu.runs.has_value());
}

TEST(RatioTargets, AreNotMeasuredWithoutTheirPoint) {
  const auto all = check_targets(plan{}, variant_results{}, nullptr, sqlite_result{});
  EXPECT_EQ(verdict(find_target(all, cpu_at_minimal)), "n/a");
}

TEST(JournalTargets, ReadTheJournalRunsTheDeviceCostAndTheOpenTime) {
  variant_results v;
  v.journal.without = {.runs = 5, .requests = 1000, .per_s = 10'000, .cpu_us = 40};
  v.journal.with = {.runs = 5, .requests = 1000, .per_s = 4'000, .cpu_us = 90};
  v.device_cost.measured = true;
  v.device_cost.rows.push_back(
      {.journal = true, .concurrency = 1, .stats = {}, .syncs_per_intent = 1.04});
  v.device_cost.rows.push_back(
      {.journal = false, .concurrency = 1, .stats = {}, .syncs_per_intent = 0});
  v.journal_open = {.measured = true, .clean_ms = 3.5, .unclean_ms = 55};
  const auto all = check_targets(plan{}, v, nullptr, sqlite_result{});

  const auto& throughput = find_target(all, "throughput load --journal / load");
  EXPECT_NEAR(*throughput.measured, 0.4, 1e-9);
  EXPECT_EQ(verdict(throughput), "MISS");
  const auto& cpu = find_target(all, "CPU per intent load --journal / load");
  EXPECT_NEAR(*cpu.measured, 2.25, 1e-9);
  EXPECT_EQ(verdict(cpu), "MISS");
  const auto& syncs = find_target(all, "fsync-family calls per intent, journal, 1 in flight");
  EXPECT_NEAR(*syncs.measured, 1.04, 1e-9);
  EXPECT_EQ(verdict(syncs), "PASS");
  const auto& open = find_target(all, "journal open after a clean shutdown");
  EXPECT_NEAR(*open.measured, 3.5, 1e-9);
  EXPECT_EQ(verdict(open), "PASS");
}

TEST(JournalTargets, AreNotMeasuredWithoutTheirRuns) {
  const auto all = check_targets(plan{}, variant_results{}, nullptr, sqlite_result{});
  EXPECT_EQ(verdict(find_target(all, "throughput load --journal / load")), "n/a");
  EXPECT_EQ(verdict(find_target(all, "fsync-family calls per intent")), "n/a");
  EXPECT_EQ(verdict(find_target(all, "journal open after a clean shutdown")), "n/a");
}

TEST(JournalFloor, FindsTheShapeOfTheCommitsObservedRounded) {
  journal_floor_result f{.measured = true, .intents = 20'000, .repetitions = 1, .shapes = {}};
  for (const double k : {1.0, 6.0, 16.0})
    f.shapes.push_back({.per_commit = k, .full_cpu_us = 100 / k, .off_cpu_us = 5});
  // 1 / 0.18 fsync calls per intent: the commits carried 5.6 intents each.
  ASSERT_NE(f.at(1 / 0.18), nullptr);
  EXPECT_EQ(f.at(1 / 0.18)->per_commit, 6.0);
  EXPECT_EQ(f.at(16)->full_cpu_us, 100 / 16.0);
  EXPECT_EQ(f.at(3), nullptr) << "no shape was measured at 3";
}

}  // namespace
}  // namespace perf
