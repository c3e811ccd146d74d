#pragma once
// docs/PERFORMANCE.md: the generated report (tables, targets, machine), with the hand-written
// text that explains each column and how to reproduce it.

#include <optional>
#include <ostream>
#include <string>

#include "machine.hpp"
#include "results.hpp"
#include "scenarios.hpp"

namespace perf {

struct report_input {
  const plan& measured;
  machine_facts machine;
  variant_results now;
  std::optional<variant_results> before;  ///< with --before-idem-cli / --before-mock-server
  std::string before_label;               ///< e.g. the baseline's commit
  sqlite_result sqlite;
};

/// Writes the whole Markdown document.
void write_report(std::ostream& out, const report_input& in);

/// One line per target on `out` (what the harness prints when it is done).
void print_targets(std::ostream& out, const report_input& in);

}  // namespace perf
