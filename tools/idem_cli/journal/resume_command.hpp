#pragma once
// `idem-cli resume`: every intent of a journal that is not final, driven to an end with its own
// key under a fresh deadline.

#include <ostream>
#include <string>

#include "idem/intent_store.hpp"
#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/load/load_run.hpp"
#include "idem_cli/summary.hpp"

namespace idem::cli {

/// What to resume from `store`: its open intents oldest first; a planned intent is bound now if
/// its prerequisite succeeded, waits for it if it is open too, and is written down as abandoned
/// (counted not_sent) if the prerequisite can never succeed. Open intents written down by other
/// credentials than `principal` are listed in `foreign` and left out.
[[nodiscard]] run_plan resume_plan(intent_store& store, const std::string& principal,
                                   std::size_t& foreign);

/// Runs the resume; throws std::runtime_error when the journal cannot be opened. Sets
/// `foreign_token` (and runs nothing) when the journal's open intents belong to another token.
[[nodiscard]] load_summary run_resume(const resume_args& args, std::ostream& progress_out,
                                      bool show_progress, bool& foreign_token);

}  // namespace idem::cli
