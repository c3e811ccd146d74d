#pragma once
// A thin RAII layer over SQLite's C API: one connection, prepared statements cached by their SQL
// text (prepared once per connection, reset before each use and after a run, so no statement
// keeps a read snapshot or the previous request's bindings), `BEGIN IMMEDIATE` transactions. Errors
// throw sqlite_error inside the server core; the request handler turns them into `500 internal` and
// nothing half-written stays (the transaction rolls back).

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

struct sqlite3;
struct sqlite3_stmt;

namespace idem::mock {

/// An SQLite failure: the primary result code and the database's message.
class sqlite_error : public std::runtime_error {
 public:
  sqlite_error(int code, const std::string& what);
  [[nodiscard]] int code() const noexcept { return code_; }
  /// SQLITE_BUSY: another connection (another process: the server has one writer) holds the
  /// lock this statement needed. Nothing of this statement was done.
  [[nodiscard]] bool busy() const noexcept;

 private:
  int code_;
};

/// A prepared statement owned by `database`. Bind indices start at 1, columns at 0.
/// Not thread-safe (like its connection).
class statement {
 public:
  statement(sqlite3* db, std::string_view sql);
  ~statement();
  statement(const statement&) = delete;
  statement& operator=(const statement&) = delete;

  statement& bind(int index, std::int64_t value);
  statement& bind(int index, int value) { return bind(index, static_cast<std::int64_t>(value)); }
  statement& bind(int index, std::string_view value);  ///< copied (SQLITE_TRANSIENT)
  statement& bind(int index, const char* value) { return bind(index, std::string_view{value}); }
  statement& bind(int index, const std::string& value) {
    return bind(index, std::string_view{value});
  }
  statement& bind(int index, std::nullptr_t);
  template <class T>
  statement& bind(int index, const std::optional<T>& value) {
    return value ? bind(index, *value) : bind(index, nullptr);
  }

  /// Steps once: true when a row is available, false when done. Throws on error.
  bool step();
  /// Steps to completion (for statements without rows), then resets the statement and clears
  /// its bindings: a statement that ran holds no copy of its arguments until its next use.
  void run();
  /// Resets the statement and clears its bindings so it can be reused.
  void reset();

  [[nodiscard]] bool is_null(int column) const;
  [[nodiscard]] std::int64_t int64(int column) const;
  [[nodiscard]] std::string text(int column) const;  ///< "" for NULL
  [[nodiscard]] std::optional<std::string> optional_text(int column) const;
  [[nodiscard]] std::optional<std::int64_t> optional_int64(int column) const;

 private:
  sqlite3* db_;
  sqlite3_stmt* stmt_ = nullptr;
};

/// One SQLite connection. Opens (creating) the file, sets WAL journal mode, synchronous=NORMAL
/// (durable against a killed process: every committed transaction is in the WAL before COMMIT
/// returns), a busy timeout of 5 s (set_busy_timeout changes it), and foreign keys on.
/// `":memory:"` is allowed.
/// Not thread-safe: one connection per thread (the mock server uses one thread).
class database {
 public:
  explicit database(const std::string& path);
  ~database();
  database(const database&) = delete;
  database& operator=(const database&) = delete;

  /// Executes one or more statements without results.
  void exec(std::string_view sql);
  /// A cached prepared statement for `sql`, reset and with cleared bindings.
  statement& prepare(std::string_view sql);
  /// The first column of the first row of `sql` (a count, a sum), as an integer.
  std::int64_t single_int64(std::string_view sql);
  /// Rows changed by the last INSERT/UPDATE/DELETE.
  [[nodiscard]] std::int64_t changes() const;
  /// The rowid of the last row an INSERT added on this connection.
  [[nodiscard]] std::int64_t last_insert_rowid() const;
  [[nodiscard]] bool in_transaction() const;
  [[nodiscard]] sqlite3* handle() const noexcept { return db_; }
  /// How long a statement waits for a lock another connection holds before it fails with
  /// SQLITE_BUSY (sqlite_error::busy()); 0: it fails at once.
  void set_busy_timeout(std::chrono::milliseconds timeout);

  /// Runs `f` once the open `transaction` has committed, or at once when none is open (the
  /// statement that called for it has committed by itself); a rollback drops it. For what is
  /// kept beside the database (counts in memory) and must follow only what was committed.
  void after_commit(std::function<void()> f);

 private:
  friend class transaction;
  void run_after_commit();

  // Looked up by string_view: a request's dozen lookups allocate no key.
  struct sql_hash {
    using is_transparent = void;
    std::size_t operator()(std::string_view sql) const noexcept {
      return std::hash<std::string_view>{}(sql);
    }
  };

  sqlite3* db_ = nullptr;
  std::unordered_map<std::string, std::unique_ptr<statement>, sql_hash, std::equal_to<>> cache_;
  std::vector<std::function<void()>> after_commit_;  ///< of the open transaction
};

/// `BEGIN IMMEDIATE` on construction; `commit()` commits; the destructor rolls back a
/// transaction that was not committed (never throws).
class transaction {
 public:
  explicit transaction(database& db);
  ~transaction();
  transaction(const transaction&) = delete;
  transaction& operator=(const transaction&) = delete;
  void commit();

 private:
  database& db_;
  bool done_ = false;
};

}  // namespace idem::mock
