#include "idem_soak/run_soak.hpp"

#include <chrono>

#include "idem_cli/load/load_mix.hpp"
#include "idem_soak/chaos_run.hpp"
#include "idem_soak/invariants.hpp"
#include "idem_soak/journal_facts.hpp"
#include "idem_soak/server_facts.hpp"
#include "idem_soak/soak_options.hpp"
#include "idem_soak/soak_report.hpp"
#include "idem_soak/work_dir.hpp"

namespace idem::soak {
namespace {

// The fewest whole orders whose mixed plan holds at least `intents` intents.
std::uint64_t orders_for(const soak_options& o) {
  std::uint64_t orders = 0;
  std::uint64_t planned = 0;
  while (planned < o.intents)
    planned += cli::mix_for_order(o.mix, o.seed, orders++).intents();
  return orders;
}

int soak(const soak_options& o, std::ostream& out, std::ostream& err) {
  const auto began = std::chrono::steady_clock::now();
  const std::uint64_t orders = orders_for(o);
  const cli::mix_counts planned = cli::count_mix(o.mix, o.seed, orders);
  const work_dir dir = prepare_work_dir(o.work_dir, o.seed);
  err << "idem-soak: seed " << o.seed << ", " << planned.total() << " intents (" << orders
      << " orders), " << o.client_kills << " client kills, " << o.server_kills
      << " server kills; files in " << dir.path << '\n';
  const chaos_record chaos = run_chaos(o, dir, orders, planned.total(), err);
  const journal_facts journal = read_journal_facts(dir.journal(), chaos.client_starts);
  const server_facts server = read_server_facts(dir.server_db());
  const soak_verdict verdict =
      check_invariants(journal, server,
                       {.planned_intents = planned.total(),
                        .deadline = o.deadline,
                        .overrun_tolerance = o.overrun_tolerance},
                       {.final = chaos.stats,
                        .peak_multiple_charges = chaos.peak_multiple_charges,
                        .unexpected_exits = chaos.server_crashes});
  print_report(out, {.options = o,
                     .planned = planned,
                     .chaos = chaos,
                     .journal = journal,
                     .verdict = verdict,
                     .elapsed = std::chrono::duration_cast<std::chrono::milliseconds>(
                         std::chrono::steady_clock::now() - began)});
  const bool keep = o.keep || !verdict.passed() || !dir.created;
  out << "files:   " << dir.path << (keep ? "" : " (removed)") << '\n';
  if (!keep) remove_work_dir(dir);
  return verdict.passed() ? exit_passed : exit_violated;
}

}  // namespace

int run_soak(const std::vector<std::string>& args, const std::string& self_dir, std::ostream& out,
             std::ostream& err) {
  const soak_command cmd = parse_soak_options(args, self_dir);
  if (const auto* e = std::get_if<soak_usage_error>(&cmd)) {
    err << "idem-soak: " << e->message << '\n' << soak_short_usage();
    return exit_usage;
  }
  if (const auto* help = std::get_if<soak_help>(&cmd)) {
    out << help->text;
    return exit_passed;
  }
  const auto& o = std::get<soak_options>(cmd);
  try {
    return soak(o, out, err);
  } catch (const std::exception& e) {
    err << "idem-soak: the harness failed: " << e.what() << "\nreplay:  " << replay_command(o)
        << '\n';
    return exit_harness_failed;
  }
}

}  // namespace idem::soak
