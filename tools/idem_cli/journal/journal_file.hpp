#pragma once
// Opening the journal an idem-cli command was given, with an error a person can act on.

#include <memory>
#include <string>

#include "idem/sqlite_journal.hpp"

namespace idem::cli {

/// Opens the journal at `path` (read_only: for inspection, without the writer lock). Throws
/// std::runtime_error naming the file and what is wrong (in use by another process, damaged,
/// not a journal, read-only) when it cannot be opened.
[[nodiscard]] std::shared_ptr<sqlite_journal> open_journal_file(const std::string& path,
                                                                bool read_only = false);

}  // namespace idem::cli
