#include "runner.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <exception>
#include <iostream>

namespace perf {
namespace {

std::string describe(const point& at) {
  std::string s =
      std::string(to_string(at.server)) + ", " + std::to_string(at.concurrency) + " in flight";
  if (at.delay.count() > 0) s += ", delay " + std::to_string(at.delay.count()) + " ms";
  return s + ", " + std::to_string(at.requests) + " requests";
}

void say(const std::string& build, const std::string& what) {
  std::cerr << "idem_perf [" << build << "] " << what << std::endl;
}

}  // namespace

sample runner::one(client_kind kind, const point& at, load_shape shape) {
  running_server server{v_.servers, at.server, at.delay};
  shape.url = server.url();
  sample s = run_client(v_.clients, kind, shape);
  s.server_cpu_s = server.stop().cpu_s;
  return s;
}

std::uint64_t runner::calibrate(const point& at) {
  // One short run of each (which also warms the page cache), then the geometric mean of the
  // two rates: the slower client takes longer than run_seconds, the faster less.
  point probe = at;
  probe.requests = at.concurrency == 1 ? 300 : 1'000;
  double product = 1;
  for (const client_kind kind : {client_kind::idem, client_kind::raw}) {
    const sample s = one(kind, probe, {.requests = probe.requests, .concurrency = at.concurrency});
    product *= std::max(s.per_s(), 1.0);
  }
  const double n = std::sqrt(product) * plan_.run_seconds;
  const auto rounded = static_cast<std::uint64_t>(std::llround(n / 100) * 100);
  return std::clamp<std::uint64_t>(rounded, std::max<std::uint64_t>(200, 4 * at.concurrency),
                                   500'000);
}

point_result runner::measure(point at) {
  if (at.requests == 0) at.requests = calibrate(at);
  say(v_.name, describe(at));
  std::vector<sample> idem, raw;
  for (int rep = 0; rep < plan_.repetitions; ++rep) {
    // Alternating, and the order swapped every repetition: drift hits both alike.
    const bool idem_first = rep % 2 == 0;
    for (const client_kind kind : {idem_first ? client_kind::idem : client_kind::raw,
                                   idem_first ? client_kind::raw : client_kind::idem}) {
      sample s = one(kind, at, {.requests = at.requests, .concurrency = at.concurrency});
      say(v_.name, std::string("  ") + to_string(kind) + ": " +
                       std::to_string(static_cast<long>(s.per_s())) + " req/s, " +
                       std::to_string(static_cast<long>(s.cpu_us_per_request())) + " us CPU/req, " +
                       std::to_string(s.ok) + " ok");
      (kind == client_kind::idem ? idem : raw).push_back(std::move(s));
    }
  }
  // Repetition i's runs of the two clients ran back to back: their ratio is one pair's.
  const auto runs = [&](double (sample::*metric)() const) -> std::optional<ratio_range> {
    std::vector<double> a, b;
    for (const auto& s : idem)
      a.push_back((s.*metric)());
    for (const auto& s : raw)
      b.push_back((s.*metric)());
    return pairwise_ratio_range(a, b);
  };
  return {.at = at,
          .idem = summarize(idem),
          .raw = summarize(raw),
          .throughput_runs = runs(&sample::per_s),
          .cpu_runs = runs(&sample::cpu_us_per_request)};
}

overshoot_result runner::overshoot() {
  const point at{.server = server_kind::minimal,
                 .concurrency = plan_.overshoot_concurrency,
                 .delay = plan_.overshoot_delay,
                 .requests = plan_.overshoot_concurrency};
  say(v_.name, "deadline overshoot: " + describe(at) + ", deadline " +
                   std::to_string(plan_.overshoot_deadline.count()) + " ms");
  std::vector<double> p50, p99, max;
  overshoot_result out;
  for (int rep = 0; rep < plan_.repetitions; ++rep) {
    const sample s = one(client_kind::idem, at,
                         {.requests = at.requests,
                          .concurrency = at.concurrency,
                          .deadline = plan_.overshoot_deadline});
    const auto late = s.summary.find("deadline_overshoot_ms");
    if (late == s.summary.end()) {
      say(v_.name, "  this idem-cli does not report deadline_overshoot_ms");
      return out;
    }
    out.intents = late->value("intents", std::uint64_t{0});
    p50.push_back(late->value("p50", 0.0));
    p99.push_back(late->value("p99", 0.0));
    max.push_back(late->value("max", 0.0));
    say(v_.name, "  p99 " + std::to_string(p99.back()) + " ms over " + std::to_string(out.intents) +
                     " intents");
  }
  out.available = true;
  out.p50_ms = median(p50);
  out.p99_ms = median(p99);
  out.max_ms = median(max);
  return out;
}

journal_result runner::journal(std::uint64_t requests) {
  const point at{.server = server_kind::minimal,
                 .concurrency = plan_.target_concurrency,
                 .delay = milliseconds{0},
                 .requests = requests};
  say(v_.name, "journal: " + describe(at));
  std::vector<sample> with, without;
  const std::string file = v_.servers.work_dir + "/perf.journal";
  for (int rep = 0; rep < plan_.repetitions; ++rep) {
    for (const bool journaled : {rep % 2 == 0, rep % 2 != 0}) {
      sample s = one(client_kind::idem, at,
                     {.requests = requests,
                      .concurrency = at.concurrency,
                      .journal = journaled ? file : std::string{}});
      (journaled ? with : without).push_back(std::move(s));
    }
  }
  return {.without = summarize(without), .with = summarize(with)};
}

layers_result runner::layers(std::uint64_t requests, const point_result* memory_point) {
  layers_result out;
  if (v_.clients.transport_load.empty()) return out;
  const point at{.server = server_kind::minimal,
                 .concurrency = plan_.target_concurrency,
                 .delay = milliseconds{0},
                 .requests = requests};
  say(v_.name, "layers: " + describe(at));
  std::vector<sample> raw, transport, floor, idem;
  std::array<client_kind, 4> order{client_kind::raw, client_kind::transport, client_kind::floor,
                                   client_kind::idem};
  for (int rep = 0; rep < plan_.repetitions; ++rep) {
    // Each client first once in every four repetitions: drift hits all four alike.
    for (const client_kind kind : order) {
      sample s = one(kind, at, {.requests = requests, .concurrency = at.concurrency});
      say(v_.name, std::string("  ") + to_string(kind) + ": " +
                       std::to_string(static_cast<long>(s.per_s())) + " req/s, " +
                       std::to_string(static_cast<long>(s.cpu_us_per_request())) + " us CPU/req");
      (kind == client_kind::raw         ? raw
       : kind == client_kind::transport ? transport
       : kind == client_kind::floor     ? floor
                                        : idem)
          .push_back(std::move(s));
    }
    std::rotate(order.begin(), order.begin() + 1, order.end());
  }
  out.measured = true;
  out.raw = summarize(raw);
  out.transport = summarize(transport);
  out.floor = summarize(floor);
  out.idem = summarize(idem);
  if (memory_point == nullptr) return out;
  // The transport's peak RSS where the memory target is measured, and at its C = 1 baseline.
  out.memory_at = memory_point->at;
  const point base = memory_baseline(out.memory_at);
  std::vector<sample> loaded, single;
  for (int rep = 0; rep < plan_.repetitions; ++rep) {
    for (const point* p : std::array<const point*, 2>{&out.memory_at, &base}) {
      sample s =
          one(client_kind::transport, *p, {.requests = p->requests, .concurrency = p->concurrency});
      say(v_.name, std::string("  ") + to_string(client_kind::transport) + ", " + describe(*p) +
                       ": peak RSS " + std::to_string(s.max_rss_kib) + " KiB");
      (p == &base ? single : loaded).push_back(std::move(s));
    }
  }
  out.memory = summarize(loaded);
  out.memory_baseline = summarize(single);
  return out;
}

variant_results runner::run_all() {
  variant_results out;
  out.name = v_.name;
  for (const point& at : plan_.points) {
    try {
      out.points.push_back(measure(at));
    } catch (const std::exception& e) {
      if (!v_.skip_refused_points) throw;
      say(v_.name, std::string("  skipped (n/a in the report): ") + e.what());
      continue;
    }
    if (at.delay.count() > 0 && at.server == server_kind::minimal) {
      out.memory_baselines.push_back(measure(memory_baseline(out.points.back().at)));
    }
  }
  out.overshoot = overshoot();
  const point_result* base = find_point(out, server_kind::minimal, plan_.target_concurrency);
  out.journal = journal(base != nullptr ? base->at.requests : 20'000);
  out.layers = layers(base != nullptr ? base->at.requests : 20'000,
                      find_point(out, server_kind::minimal, plan_.memory_concurrency));
  out.device_cost = device_cost();
  out.journal_open = journal_open();
  const device_cost_row* busy = out.device_cost.find(true, plan_.target_concurrency);
  const bool counted = busy != nullptr && busy->syncs_per_intent && *busy->syncs_per_intent > 0;
  out.journal_floor = journal_floor(counted ? 1.0 / *busy->syncs_per_intent : 0.0);
  return out;
}

}  // namespace perf
