#pragma once
// `idem-cli journal`: what a journal holds, without the writer lock (it may be in use).

#include <ostream>

#include "idem/intent_store.hpp"
#include "idem/sqlite_journal.hpp"
#include "idem_cli/command_line/command_line.hpp"

namespace idem::cli {

/// `{intents, succeeded, rejected, not_sent, unresolved}`.
[[nodiscard]] nlohmann::json to_json(const journal_counts& c);
/// One intent's record and its timeline (`--show KEY`).
[[nodiscard]] nlohmann::json to_json(const intent_record& r,
                                     const std::vector<timeline_entry>& timeline);

/// Prints the counts, or with `--show` one intent (exit 2 if the journal has no such key).
/// Throws std::runtime_error when the journal cannot be opened.
[[nodiscard]] int run_journal(const journal_args& args, std::ostream& out, std::ostream& err);

}  // namespace idem::cli
