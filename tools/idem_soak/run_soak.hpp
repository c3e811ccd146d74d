#pragma once
// idem-soak from its command line to its exit status: the run, the checks and the report.

#include <ostream>
#include <string>
#include <vector>

namespace idem::soak {

/// Exit statuses (printed in the usage text).
inline constexpr int exit_passed = 0;
inline constexpr int exit_violated = 1;
inline constexpr int exit_usage = 2;
inline constexpr int exit_harness_failed = 3;

/// Runs idem-soak with `args` (argv without the program name); `self_dir` is the directory of
/// the idem-soak binary. The report goes to `out`, progress and errors to `err`.
[[nodiscard]] int run_soak(const std::vector<std::string>& args, const std::string& self_dir,
                           std::ostream& out, std::ostream& err);

}  // namespace idem::soak
