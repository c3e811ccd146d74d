#pragma once
// Internal: opening a journal file safely. The file is checked (SQLite header, application_id,
// format version, PRAGMA quick_check) before anything is written to it, so a damaged file or
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
/// `PRAGMA user_version`: the format this code writes. A newer one is refused.
inline constexpr std::int64_t journal_schema_version = 1;

struct journal_database {
  sqlite_connection db;
  /// False only for a read-only open of a new (empty) file: there is nothing to read yet.
  bool has_schema = true;
};

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
