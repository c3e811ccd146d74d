#pragma once
// idem-cli as a function (contract section 9): what main() does, with the streams passed in so the
// tests can run the whole dispatch.

#include <iosfwd>
#include <string>
#include <vector>

namespace idem::cli {

/// Runs idem-cli on `args` (argv without the program name) and returns its exit status:
/// - a usage error: "idem-cli: <what is wrong>" and where the usage is (the short usage, or the
///   command's --help) on `err`, nothing on `out`, exit_usage (2);
/// - help or --version: the help of the program or of the command asked for, or the version, on
///   `out`, 0;
/// - submit: the outcome as one JSON line on `out`, the status of that outcome; unless it
///   succeeded, `idem-cli: <outcome>: <why>` on `err`;
/// - load and resume: one JSON summary line on `out` (a progress bar on `err` if
///   `show_progress`), the status of all their outcomes; on `err` a line per outcome and
///   reason for those that did not succeed, with counts;
/// - conform: the report on `out` (a table, or one JSON line), the status of conform_command.hpp
///   (0 nothing breaks exactly-once, 1 some check failed, 3 some could not be completed); the
///   failed and unfinished checks named on `err`;
/// - after Ctrl-C (submit, load, resume): the keys of the unresolved intents on `err`, one per
///   line, and how to finish them;
/// - setup failure (an exception, e.g. curl or OpenSSL unavailable): "idem-cli: <what>" on
///   `err`, exit_setup_failed (4). Outcomes never throw.
[[nodiscard]] int run_cli(const std::vector<std::string>& args, std::ostream& out,
                          std::ostream& err, bool show_progress);

}  // namespace idem::cli
