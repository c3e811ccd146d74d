#pragma once
// The hand-written prose of docs/PERFORMANCE.md: what is measured, what each column means, how
// to reproduce it.

#include <string>

namespace perf {

/// The title and the explanation that come before the tables.
[[nodiscard]] std::string report_preamble(int repetitions);

/// The closing "How to reproduce" section.
[[nodiscard]] std::string report_reproduce();

}  // namespace perf
