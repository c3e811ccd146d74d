#pragma once
// Internal: opening a journal file safely. The file is checked (SQLite header and size,
// application_id, format version, and PRAGMA quick_check unless the last writer closed it
// cleanly) before anything is written to it, so a damaged file or
// another program's database is refused and left exactly as it was; a new (missing or empty)
// file gets the schema. Private to the idem library.

#include <optional>
#include <string>
#include <system_error>

#include "idem/sqlite_journal.hpp"
#include "store/sqlite/sqlite_connection.hpp"

namespace idem::detail {

/// `PRAGMA application_id` of every idem journal ("idem" in ASCII).
inline constexpr std::int64_t journal_application_id = 0x6964656D;
/// `PRAGMA user_version`: the format this code writes. A newer one is refused; an older one
/// is read as it is (read-only) or brought to this one at a writer's open.
///   1: events indexed by their intent's key.
///   2: events indexed by their intent's seq (a key is random, so every line written touched
///      its own page of the key index: about a third of the bytes written per intent), and
///      the journal_state table (the clean-shutdown mark).
///   3: no events table: each intent's timeline is a text column of its row (tab-separated
///      lines), appended to by the writes its row gets anyway, so that a commit writes one row
///      per intent instead of that row plus a row and an index entry per line.
inline constexpr std::int64_t journal_schema_version = 3;

struct journal_database {
  sqlite_connection db;
  /// False only for a read-only open of a new (empty) file: there is nothing to read yet.
  bool has_schema = true;
  /// The file's format (a read-only open leaves an older file as it is).
  std::int64_t version = journal_schema_version;
  /// False for a read-only open of a file whose last writer did not close it cleanly (dead, or
  /// still at work): its reads apply the recovery a writer's open would (read_as_recovered).
  bool closed_cleanly = true;
};

/// The timeline statement for a file of `version` (?1 = key): the row's column in format 3,
/// else the events table's lines, oldest first.
[[nodiscard]] const char* select_timeline_sql_for(std::int64_t version);

/// Marks the journal as closed cleanly (at the writer's close, after its last commit): the next
/// open skips `PRAGMA quick_check`. Every writer's open clears the mark first, so a process
/// that dies leaves it cleared.
void mark_clean_shutdown(sqlite_connection& db) noexcept;

/// Opens and checks the journal at `options.path`, creating the schema in a new file (unless
/// read_only), in WAL mode with the synchronous level of `options.durability`. On failure sets
/// `ec` (journal_errc) and `detail` and returns nullopt; the file is not modified.
[[nodiscard]] std::optional<journal_database> open_journal_database(const journal_options& options,
                                                                    std::error_code& ec,
                                                                    std::string& detail);

/// A second connection to an opened journal, for reads beside the writer (WAL lets it read
/// the last committed state while a commit is in progress). Never writes.
[[nodiscard]] std::optional<sqlite_connection> open_journal_reader(const std::string& path,
                                                                   std::error_code& ec,
                                                                   std::string& detail);

}  // namespace idem::detail
