#include "targets.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace perf {
namespace {

using value_of = std::optional<double> (*)(const plan&, const variant_results&,
                                           const sqlite_result&);
using range_of = std::optional<ratio_range> (*)(const plan&, const variant_results&);

// A ratio target reads the median of the repetitions' paired ratios (each repetition's idem run
// against the raw libcurl run next to it): a host that changes speed between repetitions moves
// both runs of a pair alike, where the ratio of the two clients' medians depends on how many of
// each client's runs fell at each speed. The ratio of the medians when there are no pairs.
std::optional<double> throughput(const variant_results& v, server_kind s, std::uint64_t c) {
  const point_result* p = find_point(v, s, c);
  if (p == nullptr) return std::nullopt;
  if (p->throughput_runs) return p->throughput_runs->median;
  return ratio(p->idem.per_s, p->raw.per_s);
}

std::optional<double> cpu(const variant_results& v, server_kind s, std::uint64_t c) {
  const point_result* p = find_point(v, s, c);
  if (p == nullptr) return std::nullopt;
  if (p->cpu_runs) return p->cpu_runs->median;
  return ratio(p->idem.cpu_us, p->raw.cpu_us);
}

// A ratio target's range over the repetitions at the target's point (`field` of the point).
template <std::optional<ratio_range> point_result::*field, server_kind server>
std::optional<ratio_range> runs_at(const plan& pl, const variant_results& v) {
  const point_result* p = find_point(v, server, pl.target_concurrency);
  if (p == nullptr) return std::nullopt;
  return (*p).*field;
}

std::optional<double> extra_memory(const plan& p, const variant_results& v, const sqlite_result&) {
  const point_result* at = find_point(v, server_kind::minimal, p.memory_concurrency);
  if (at == nullptr) return std::nullopt;
  const auto m = memory_at(v, *at);
  if (!m) return std::nullopt;
  return m->extra();
}

std::optional<double> against_sqlite(const plan& p, const variant_results& v,
                                     const sqlite_result& sqlite) {
  if (!sqlite.available) return std::nullopt;
  const double creates = mock_creates_per_s(v, p.target_concurrency);
  if (creates <= 0) return std::nullopt;
  return ratio(creates, sqlite.one_txn_per_s);
}

std::optional<double> overshoot_p99(const plan&, const variant_results& v, const sqlite_result&) {
  if (!v.overshoot.available) return std::nullopt;
  return v.overshoot.p99_ms;
}

// Issue 47's: the journal's cost against the memory store's, at the target's point.
std::optional<double> journal_throughput(const plan&, const variant_results& v,
                                         const sqlite_result&) {
  if (v.journal.with.runs == 0) return std::nullopt;
  return ratio(v.journal.with.per_s, v.journal.without.per_s);
}

std::optional<double> journal_cpu(const plan&, const variant_results& v, const sqlite_result&) {
  if (v.journal.with.runs == 0) return std::nullopt;
  return ratio(v.journal.with.cpu_us, v.journal.without.cpu_us);
}

std::optional<double> journal_syncs(const plan&, const variant_results& v, const sqlite_result&) {
  const device_cost_row* r = v.device_cost.find(/*journal=*/true, 1);
  if (r == nullptr) return std::nullopt;
  return r->syncs_per_intent;
}

std::optional<double> journal_open_ms(const plan&, const variant_results& v, const sqlite_result&) {
  if (!v.journal_open.measured) return std::nullopt;
  return v.journal_open.clean_ms;
}

}  // namespace

double mock_creates_per_s(const variant_results& v, std::uint64_t concurrency) {
  const point_result* p = find_point(v, server_kind::mock, concurrency);
  if (p == nullptr) return 0;
  return std::max(p->idem.per_s, p->raw.per_s);
}

std::vector<target_check> check_targets(const plan& p, const variant_results& now,
                                        const variant_results* before,
                                        const sqlite_result& sqlite) {
  const std::uint64_t c = p.target_concurrency;
  const std::string at_c = " at " + std::to_string(c) + " in flight";
  struct spec {
    std::string name;
    std::string limit_text;
    double limit;
    bool at_least;
    std::string unit;
    value_of value;
    range_of runs = nullptr;
  };
  const std::vector<spec> specs = {
      // Issue 47 restated these two as guards that must keep holding: 0.95× and 1.1× were out
      // of reach at the smallest server (the floor any intent layer pays is 1.01-1.05× raw
      // libcurl's CPU).
      {"throughput idem / raw libcurl, minimal server" + at_c, "≥ 0.85×", 0.85, true, "×",
       [](const plan& pl, const variant_results& v, const sqlite_result&) {
         return throughput(v, server_kind::minimal, pl.target_concurrency);
       },
       &runs_at<&point_result::throughput_runs, server_kind::minimal>},
      {"throughput idem / raw libcurl, mock server" + at_c, "≥ 0.95×", 0.95, true, "×",
       [](const plan& pl, const variant_results& v, const sqlite_result&) {
         return throughput(v, server_kind::mock, pl.target_concurrency);
       },
       &runs_at<&point_result::throughput_runs, server_kind::mock>},
      {"CPU per intent idem / raw libcurl, minimal server" + at_c, "≤ 1.15×", 1.15, false, "×",
       [](const plan& pl, const variant_results& v, const sqlite_result&) {
         return cpu(v, server_kind::minimal, pl.target_concurrency);
       },
       &runs_at<&point_result::cpu_runs, server_kind::minimal>},
      {"CPU per intent idem / raw libcurl, mock server" + at_c, "≤ 1.1×", 1.1, false, "×",
       [](const plan& pl, const variant_results& v, const sqlite_result&) {
         return cpu(v, server_kind::mock, pl.target_concurrency);
       },
       &runs_at<&point_result::cpu_runs, server_kind::mock>},
      {"extra peak RSS per in-flight intent over raw libcurl at " +
           std::to_string(p.memory_concurrency) + " in flight",
       "≤ 2048 B", 2048, false, " B", &extra_memory},
      {"mock server creates/s / SQLite's own rate (one transaction per create)" + at_c, "≥ 0.8×",
       0.8, true, "×", &against_sqlite},
      {"throughput load --journal / load, minimal server" + at_c, "≥ 0.5×", 0.5, true, "×",
       &journal_throughput},
      {"CPU per intent load --journal / load, minimal server" + at_c, "≤ 2×", 2, false, "×",
       &journal_cpu},
      {"fsync-family calls per intent, journal, 1 in flight", "≤ 1.1", 1.1, false, "",
       &journal_syncs},
      {"journal open after a clean shutdown, 10,000 final and 100 open intents", "≤ 20 ms", 20,
       false, " ms", &journal_open_ms},
      {"deadline overshoot p99 (" + std::to_string(p.overshoot_concurrency) +
           " in flight, all delayed past the deadline)",
       "≤ 2 ms", 2, false, " ms", &overshoot_p99},
  };
  std::vector<target_check> out;
  for (const auto& s : specs) {
    out.push_back({.name = s.name,
                   .limit_text = s.limit_text,
                   .limit = s.limit,
                   .at_least = s.at_least,
                   .unit = s.unit,
                   .measured = s.value(p, now, sqlite),
                   .before = before != nullptr ? s.value(p, *before, sqlite) : std::nullopt,
                   .runs = s.runs != nullptr ? s.runs(p, now) : std::nullopt});
  }
  return out;
}

std::string verdict(const target_check& t) {
  const auto pass = t.passes();
  if (!pass) return "n/a";
  return *pass ? "PASS" : "MISS";
}

std::string format_value(const std::optional<double>& v, const std::string& unit) {
  if (!v) return "n/a";
  char buf[64];
  if (unit == " B") {
    std::snprintf(buf, sizeof buf, "%.0f B", std::round(*v));
  } else {
    std::snprintf(buf, sizeof buf, "%.2f%s", *v, unit.c_str());
  }
  return buf;
}

std::string format_range(const std::optional<ratio_range>& r, const std::string& unit) {
  if (!r) return "";
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f–%.2f%s", r->low, r->high, unit.c_str());
  return buf;
}

}  // namespace perf
