#pragma once
// The table `idem-cli conform` prints: one row per check (check, what was sent, what came back,
// verdict, why it matters with the idem setting it implies), cells word-wrapped to fixed widths,
// then the counts, the profile that fits and what the exit status means.

#include <ostream>

#include "idem_cli/conform/conform_result.hpp"

namespace idem::cli {

/// Writes the report as a text table.
void print_table(const conform_report& report, std::ostream& out);

}  // namespace idem::cli
