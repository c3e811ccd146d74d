#pragma once
// Internal: owning handles for SQLite's C API (a connection, a prepared statement kept and
// reset between uses) and how SQLite's result codes map to journal_errc. Private to the idem
// library.

#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

namespace idem::detail {

/// The journal error for a SQLite result code (primary or extended) and the system's error behind
/// it (sqlite3_system_errno: errno, or Windows' GetLastError code; platform/storage_error.hpp):
/// SQLITE_FULL (or ENOSPC, EDQUOT) is `full`; SQLITE_READONLY, SQLITE_PERM, SQLITE_AUTH, or a file
/// that cannot be opened or written for EACCES/EPERM/EROFS is `read_only`; SQLITE_CORRUPT and
/// SQLITE_NOTADB are `corrupt`; anything else is `io`.
[[nodiscard]] std::error_code journal_error_of(int sqlite_rc, int sys_errno) noexcept;

/// A SQLite connection (closed on destruction). Used by one thread at a time.
class sqlite_connection {
 public:
  sqlite_connection() = default;
  /// Opens `path` with `flags` (SQLITE_OPEN_*) through the VFS named `vfs` (the default if
  /// nullptr); check `rc` (the connection is usable for error messages even on failure).
  sqlite_connection(const std::string& path, int flags, int& rc, const char* vfs = nullptr);
  ~sqlite_connection();
  sqlite_connection(sqlite_connection&& other) noexcept : db_(other.db_) { other.db_ = nullptr; }
  sqlite_connection& operator=(sqlite_connection&& other) noexcept;
  sqlite_connection(const sqlite_connection&) = delete;
  sqlite_connection& operator=(const sqlite_connection&) = delete;

  [[nodiscard]] sqlite3* get() const noexcept { return db_; }
  /// Runs SQL without results (statements separated by ';'). Returns the SQLite result code.
  int exec(const char* sql) noexcept;
  /// The last error's message.
  [[nodiscard]] std::string message() const;
  /// The journal error for `rc` on this connection (with the OS errno behind it).
  [[nodiscard]] std::error_code error_of(int rc) const noexcept;
  /// One integer PRAGMA value (e.g. "application_id"); nullopt and `rc` set on failure.
  [[nodiscard]] std::optional<std::int64_t> pragma_int(const char* name, int& rc) noexcept;

 private:
  sqlite3* db_ = nullptr;
};

/// A prepared statement, kept for the connection's life and reset after each use.
class sqlite_statement {
 public:
  sqlite_statement() = default;
  /// Prepares `sql` (SQLITE_PREPARE_PERSISTENT); check `rc`.
  sqlite_statement(sqlite3* db, std::string_view sql, int& rc);
  ~sqlite_statement() { sqlite3_finalize(stmt_); }
  sqlite_statement(sqlite_statement&& other) noexcept : stmt_(other.stmt_) {
    other.stmt_ = nullptr;
  }
  sqlite_statement& operator=(sqlite_statement&& other) noexcept;
  sqlite_statement(const sqlite_statement&) = delete;
  sqlite_statement& operator=(const sqlite_statement&) = delete;

  // Parameters count from 1, as in SQLite; text and blobs are copied (SQLITE_TRANSIENT).
  void bind(int i, std::int64_t v) noexcept { sqlite3_bind_int64(stmt_, i, v); }
  void bind_text(int i, std::string_view v) noexcept;
  void bind_blob(int i, std::string_view v) noexcept;
  void bind_null(int i) noexcept { sqlite3_bind_null(stmt_, i); }
  void bind_optional_text(int i, const std::optional<std::string>& v) noexcept;
  void bind_optional(int i, const std::optional<std::int64_t>& v) noexcept;
  // Not copied (SQLITE_STATIC): the bytes must stay valid until the statement is reset (the
  // end of its statement_use, which clears the bindings). The journal's writer binds its
  // snapshots this way: a copy of every row's strings was a fifth of its own CPU.
  void bind_text_ref(int i, std::string_view v) noexcept;
  void bind_blob_ref(int i, std::string_view v) noexcept;
  void bind_optional_text_ref(int i, const std::optional<std::string>& v) noexcept;

  /// SQLITE_ROW, SQLITE_DONE or an error code.
  int step() noexcept { return sqlite3_step(stmt_); }
  /// Ready for the next use: reset, bindings cleared.
  void reset() noexcept {
    sqlite3_reset(stmt_);
    sqlite3_clear_bindings(stmt_);
  }

  // Columns count from 0, as in SQLite.
  [[nodiscard]] std::int64_t column_int(int i) const noexcept {
    return sqlite3_column_int64(stmt_, i);
  }
  [[nodiscard]] std::string column_text(int i) const;
  [[nodiscard]] bool column_is_null(int i) const noexcept {
    return sqlite3_column_type(stmt_, i) == SQLITE_NULL;
  }
  [[nodiscard]] std::optional<std::string> column_optional_text(int i) const;
  [[nodiscard]] std::optional<std::int64_t> column_optional_int(int i) const noexcept;

 private:
  sqlite3_stmt* stmt_ = nullptr;
};

/// Resets a statement when a use of it ends, whichever way it ends.
class statement_use {
 public:
  explicit statement_use(sqlite_statement& s) noexcept : s_(s) {}
  ~statement_use() { s_.reset(); }
  statement_use(const statement_use&) = delete;
  statement_use& operator=(const statement_use&) = delete;

 private:
  sqlite_statement& s_;
};

}  // namespace idem::detail
