#pragma once
// Raw SQLite for the benchmarks that measure SQLite itself (idem_sqlite_pattern,
// idem_journal_floor): a failed call throws, a statement is prepared once and reset after every
// use, as the server and the journal keep theirs.

#include <sqlite3.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace perf {

inline void check(int rc, sqlite3* db, const std::string& what) {
  if (rc != SQLITE_OK && rc != SQLITE_DONE && rc != SQLITE_ROW)
    throw std::runtime_error(what + ": " + sqlite3_errmsg(db));
}

inline void exec(sqlite3* db, const std::string& sql) {
  check(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), db, sql);
}

class statement {
 public:
  statement(sqlite3* db, const char* sql) : db_(db) {
    check(sqlite3_prepare_v3(db, sql, -1, SQLITE_PREPARE_PERSISTENT, &stmt_, nullptr), db, sql);
  }
  ~statement() { sqlite3_finalize(stmt_); }
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  /// A copy of `text` (the argument may be a temporary).
  statement& bind(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
    return *this;
  }
  /// `text` itself, without a copy: it must live until the statement has run.
  statement& bind_ref(int i, const std::string& text) {
    sqlite3_bind_text(stmt_, i, text.data(), static_cast<int>(text.size()), SQLITE_STATIC);
    return *this;
  }
  statement& bind(int i, std::int64_t v) {
    sqlite3_bind_int64(stmt_, i, v);
    return *this;
  }
  /// Steps through every row; returns the number of rows.
  int run() {
    int rows = 0;
    int rc = 0;
    while ((rc = sqlite3_step(stmt_)) == SQLITE_ROW)
      ++rows;
    check(rc, db_, "step");
    sqlite3_reset(stmt_);
    return rows;
  }

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

}  // namespace perf
