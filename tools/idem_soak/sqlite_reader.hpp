#pragma once
// Read-only queries on a SQLite file that another program wrote (the mock server's database,
// idem-cli's journal): the soak's checks read what is there and never change it.

#include <sqlite3.h>

#include <cstdint>
#include <functional>
#include <string>

namespace idem::soak {

/// One row of a result, valid only inside the callback that received it.
class sqlite_row {
 public:
  explicit sqlite_row(sqlite3_stmt* s) noexcept : s_(s) {}
  [[nodiscard]] std::string text(int column) const;  ///< "" for NULL
  [[nodiscard]] std::int64_t integer(int column) const noexcept;
  [[nodiscard]] bool is_null(int column) const noexcept;

 private:
  sqlite3_stmt* s_;
};

/// A read-only connection (SQLITE_OPEN_READONLY). Not thread-safe.
class sqlite_reader {
 public:
  /// Opens `path`; throws std::runtime_error naming the file if it cannot.
  explicit sqlite_reader(const std::string& path);
  ~sqlite_reader();
  sqlite_reader(const sqlite_reader&) = delete;
  sqlite_reader& operator=(const sqlite_reader&) = delete;

  /// Runs `sql` (no parameters) and calls `on_row` for each row; throws std::runtime_error with
  /// SQLite's message if the statement fails.
  void each(const std::string& sql, const std::function<void(const sqlite_row&)>& on_row) const;
  /// The first column of the first row of `sql` (0 if there is no row).
  [[nodiscard]] std::int64_t scalar(const std::string& sql) const;

 private:
  std::string path_;
  sqlite3* db_ = nullptr;
};

}  // namespace idem::soak
