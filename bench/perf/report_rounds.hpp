#pragma once
// The parts of report_changes() (report_text.hpp), a few rounds of issue 9's speed work each:
// one string for all of them made a file of 900 lines. report_changes() joins them in order; a
// later round extends the last part (renamed) or starts one of its own.

#include <string>

namespace perf {

/// The section's heading and introduction, the first round's table and rounds two to ten.
[[nodiscard]] std::string report_rounds_1_to_10();

/// The eleventh to sixteenth rounds.
[[nodiscard]] std::string report_rounds_11_to_16();

/// The seventeenth to twenty-first rounds.
[[nodiscard]] std::string report_rounds_17_to_21();

/// The twenty-second round on.
[[nodiscard]] std::string report_rounds_22_on();

}  // namespace perf
