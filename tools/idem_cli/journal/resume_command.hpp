#pragma once
// `idem-cli resume`: every intent of a journal that is not final, driven to an end with its own
// key under a fresh deadline, by the library's client::async_resume; this adds the command
// line's lookup, the progress bar, Ctrl-C and the summary.

#include <ostream>

#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/summary.hpp"

namespace idem::cli {

/// Runs the resume; throws std::runtime_error when the journal cannot be opened. Sets
/// `foreign_token` (and runs nothing) when the journal's open intents belong to another token.
[[nodiscard]] load_summary run_resume(const resume_args& args, std::ostream& progress_out,
                                      bool show_progress, bool& foreign_token);

}  // namespace idem::cli
