#include "idem_soak/soak_report.hpp"

#include <algorithm>
#include <cstdio>
#include <iomanip>
#include <map>
#include <string>

#include "idem_soak/fault_schedule.hpp"

namespace idem::soak {
namespace {

std::string seconds(std::chrono::milliseconds d) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f s", static_cast<double>(d.count()) / 1000.0);
  return buf;
}

void figure(std::ostream& out, const std::string& name, std::uint64_t value,
            const std::string& note = {}) {
  out << "  " << std::left << std::setw(34) << name << std::right << std::setw(8) << value;
  if (!note.empty()) out << "   " << note;
  out << '\n';
}

void print_figures(std::ostream& out, const soak_outcome& r) {
  const auto& p = r.planned;
  const auto& c = r.chaos;
  std::map<intent_state, std::uint64_t> ended;
  for (const auto& i : r.journal.intents)
    ++ended[i.state];
  figure(out, "intents planned", p.total(),
         std::to_string(p.creates) + " orders, " + std::to_string(p.double_orders) +
             " double orders, " + std::to_string(p.payments) + " payments, " +
             std::to_string(p.double_payments) + " double payments, " + std::to_string(p.cancels) +
             " cancels");
  figure(out, "succeeded", ended[intent_state::succeeded]);
  figure(out, "rejected", ended[intent_state::rejected],
         "double taps that lost, payments after a cancel, ...");
  figure(out, "abandoned", ended[intent_state::abandoned],
         "plans of an order whose create lost to its double tap");
  figure(out, "open", ended[intent_state::open]);
  figure(out, "client kills (SIGKILL)", c.client_kills,
         "each resumed from the journal; " + std::to_string(c.chaos_resumes) +
             " more resumes under faults, " + std::to_string(c.calm_resumes) + " after them");
  figure(out, "server kills (SIGKILL)", c.server_kills, "each restarted on its database and port");
  if (!c.server_crashes.empty()) {
    figure(out, "server ended on its own", c.server_crashes.size(), c.server_crashes.front());
  }
  figure(out, "faults injected", c.faults_injected, "the server's count");
  for (const char* kind : fault_kinds) {
    auto it = c.faults.by_kind().find(kind);
    figure(out, std::string("  ") + kind, it == c.faults.by_kind().end() ? 0 : it->second);
  }
  const std::uint64_t counted = c.faults.total();
  figure(out, "  not attributed", c.faults_injected > counted ? c.faults_injected - counted : 0,
         "fired between the last count and a server kill");
  for (const char* name : {"requests", "replays", "in_progress_conflicts", "business_id_conflicts",
                           "invalid_state_transitions", "provider_charges", "provider_refunds"}) {
    figure(out, std::string("server ") + name, c.stats.value(name, std::uint64_t{0}));
  }
}

void print_checks(std::ostream& out, const soak_verdict& v) {
  std::size_t name_width = 5;
  std::size_t value_width = 5;
  for (const auto& c : v.checks) {
    name_width = std::max(name_width, c.name.size());
    value_width = std::max(value_width, c.value.size());
  }
  auto line = [&](const std::string& name, const std::string& value, const char* verdict) {
    out << "  " << std::left << std::setw(static_cast<int>(name_width + 2)) << name
        << std::setw(static_cast<int>(value_width + 2)) << value << verdict << std::right << '\n';
  };
  line("check", "value", "verdict");
  for (const auto& c : v.checks) {
    line(c.name, c.value, c.ok ? "ok" : "VIOLATED");
    for (const auto& e : c.examples)
      out << "      " << e << '\n';
  }
}

}  // namespace

void print_report(std::ostream& out, const soak_outcome& r) {
  out << "\nidem-soak: seed " << r.options.seed << ", " << r.planned.total() << " intents ("
      << r.chaos.orders << " orders), " << seconds(r.elapsed) << " (chaos "
      << seconds(r.chaos.chaos_time) << ", calm " << seconds(r.chaos.calm_time) << ")\n\n";
  print_figures(out, r);
  out << '\n';
  print_checks(out, r.verdict);
  std::size_t failed = 0;
  for (const auto& c : r.verdict.checks)
    failed += c.ok ? 0 : 1;
  out << '\n'
      << (failed == 0 ? "verdict: PASS, every check holds"
                      : "verdict: FAIL, " + std::to_string(failed) + " of " +
                            std::to_string(r.verdict.checks.size()) + " checks violated")
      << " (seed " << r.options.seed << ")\n"
      << "replay:  " << replay_command(r.options) << '\n';
}

}  // namespace idem::soak
