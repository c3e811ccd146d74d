#pragma once
// What idem-soak prints: the run's figures (intents, outcomes, kills, faults by kind), the
// verdict table (check, value, verdict, with a few offenders under a failed check), the seed
// and the command that replays the run.

#include <chrono>
#include <ostream>

#include "idem_cli/load/load_mix.hpp"
#include "idem_soak/chaos_run.hpp"
#include "idem_soak/invariants.hpp"
#include "idem_soak/journal_facts.hpp"
#include "idem_soak/soak_options.hpp"

namespace idem::soak {

struct soak_outcome {
  const soak_options& options;
  const cli::mix_counts& planned;
  const chaos_record& chaos;
  const journal_facts& journal;
  const soak_verdict& verdict;
  std::chrono::milliseconds elapsed{0};
};

/// Prints the figures, the verdict table and the replay line.
void print_report(std::ostream& out, const soak_outcome& r);

}  // namespace idem::soak
