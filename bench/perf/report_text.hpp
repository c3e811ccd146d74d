#pragma once
// The hand-written prose of docs/PERFORMANCE.md: what is measured, what each column means, how
// to reproduce it.

#include <string>

namespace perf {

/// The title and the explanation that come before the tables.
[[nodiscard]] std::string report_preamble(int repetitions);

/// "What changed for speed": each change of issue 9 and its effect, measured by hand.
[[nodiscard]] std::string report_changes();

/// The closing "How to reproduce" section.
[[nodiscard]] std::string report_reproduce();

}  // namespace perf
