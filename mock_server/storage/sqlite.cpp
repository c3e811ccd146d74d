#include "mock_server/storage/sqlite.hpp"

#include <sqlite3.h>

#include <algorithm>
#include <climits>

namespace idem::mock {

namespace {

// Long enough for another connection's short write transaction to finish. The mock server uses
// it while it starts (migrations, expiring old leases) and then sets its own (server_state.cpp).
constexpr int busy_timeout_ms = 5000;

// The header promises the primary result code (SQLITE_FULL, not SQLITE_FULL | extended bits).
int primary(int code) noexcept {
  return code & 0xFF;
}

[[noreturn]] void throw_error(sqlite3* db, int code, std::string_view context) {
  std::string what{context};
  what += ": ";
  what += db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code);
  throw sqlite_error(primary(code), what);
}

int checked_size(std::string_view text) {
  if (text.size() > static_cast<std::size_t>(INT_MAX)) {
    throw sqlite_error(SQLITE_TOOBIG, "bind: text larger than 2 GiB");
  }
  return static_cast<int>(text.size());
}

}  // namespace

sqlite_error::sqlite_error(int code, const std::string& what)
    : std::runtime_error(what), code_(code) {}

bool sqlite_error::busy() const noexcept {
  return code_ == SQLITE_BUSY;
}

// ---------------------------------------------------------------------------------------------
// statement

statement::statement(sqlite3* db, std::string_view sql) : db_(db) {
  int rc = sqlite3_prepare_v2(db_, sql.data(), checked_size(sql), &stmt_, nullptr);
  if (rc != SQLITE_OK) {
    sqlite3_finalize(stmt_);  // harmless on nullptr
    stmt_ = nullptr;
    throw_error(db_, rc, "prepare \"" + std::string{sql} + "\"");
  }
}

statement::~statement() {
  sqlite3_finalize(stmt_);
}

statement& statement::bind(int index, std::int64_t value) {
  int rc = sqlite3_bind_int64(stmt_, index, value);
  if (rc != SQLITE_OK) throw_error(db_, rc, "bind");
  return *this;
}

statement& statement::bind(int index, std::string_view value) {
  // A null data pointer would bind NULL; an empty string_view may carry one.
  const char* data = value.data() != nullptr ? value.data() : "";
  int rc = sqlite3_bind_text(stmt_, index, data, checked_size(value), SQLITE_TRANSIENT);
  if (rc != SQLITE_OK) throw_error(db_, rc, "bind");
  return *this;
}

statement& statement::bind(int index, std::nullptr_t) {
  int rc = sqlite3_bind_null(stmt_, index);
  if (rc != SQLITE_OK) throw_error(db_, rc, "bind");
  return *this;
}

bool statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // Leave the statement reusable and release its locks before reporting the failure.
  sqlite3_reset(stmt_);
  throw_error(db_, rc, "step");
}

void statement::run() {
  while (step()) {
  }
  reset();
}

void statement::reset() {
  // sqlite3_reset repeats the error of the last step, which step() has already reported.
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool statement::is_null(int column) const {
  return sqlite3_column_type(stmt_, column) == SQLITE_NULL;
}

std::int64_t statement::int64(int column) const {
  return sqlite3_column_int64(stmt_, column);
}

std::string statement::text(int column) const {
  const auto* data = sqlite3_column_text(stmt_, column);
  if (data == nullptr) return {};
  // Ask for the size after the text: the conversion to text may change it.
  auto size = static_cast<std::size_t>(sqlite3_column_bytes(stmt_, column));
  return std::string{reinterpret_cast<const char*>(data), size};
}

std::optional<std::string> statement::optional_text(int column) const {
  if (is_null(column)) return std::nullopt;
  return text(column);
}

std::optional<std::int64_t> statement::optional_int64(int column) const {
  if (is_null(column)) return std::nullopt;
  return int64(column);
}

// ---------------------------------------------------------------------------------------------
// database

database::database(const std::string& path) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, nullptr);
  if (rc != SQLITE_OK) {
    std::string what =
        "open \"" + path + "\": " + (db_ != nullptr ? sqlite3_errmsg(db_) : sqlite3_errstr(rc));
    sqlite3_close_v2(db_);  // sqlite allocates a handle even when opening fails
    db_ = nullptr;
    throw sqlite_error(primary(rc), what);
  }
  try {
    sqlite3_busy_timeout(db_, busy_timeout_ms);
    // WAL + NORMAL: a commit is in the WAL before COMMIT returns, so a killed process loses
    // nothing acknowledged; only a power cut could lose the last transactions.
    exec("PRAGMA journal_mode = WAL");
    exec("PRAGMA synchronous = NORMAL");
    exec("PRAGMA foreign_keys = ON");
  } catch (...) {
    sqlite3_close_v2(db_);  // the destructor does not run for a throwing constructor
    db_ = nullptr;
    throw;
  }
}

database::~database() {
  cache_.clear();  // statements must be finalized before their connection closes
  sqlite3_close_v2(db_);
}

void database::exec(std::string_view sql) {
  char* message = nullptr;
  int rc = sqlite3_exec(db_, std::string{sql}.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string what =
        "exec \"" + std::string{sql} + "\": " + (message != nullptr ? message : sqlite3_errstr(rc));
    sqlite3_free(message);
    throw sqlite_error(primary(rc), what);
  }
}

statement& database::prepare(std::string_view sql) {
  auto it = cache_.find(sql);
  if (it == cache_.end()) {
    auto stmt = std::make_unique<statement>(db_, sql);
    it = cache_.emplace(std::string{sql}, std::move(stmt)).first;
  }
  // A previous user may have stopped mid-way: start it fresh so it holds no read snapshot.
  it->second->reset();
  return *it->second;
}

std::int64_t database::single_int64(std::string_view sql) {
  auto& stmt = prepare(sql);
  stmt.step();
  auto n = stmt.int64(0);
  stmt.reset();
  return n;
}

std::int64_t database::changes() const {
  return sqlite3_changes64(db_);
}

std::int64_t database::last_insert_rowid() const {
  return sqlite3_last_insert_rowid(db_);
}

bool database::in_transaction() const {
  return sqlite3_get_autocommit(db_) == 0;
}

void database::set_busy_timeout(std::chrono::milliseconds timeout) {
  const auto ms = std::clamp<std::int64_t>(timeout.count(), 0, INT_MAX);
  sqlite3_busy_timeout(db_, static_cast<int>(ms));
}

void database::after_commit(std::function<void()> f) {
  if (in_transaction()) {
    after_commit_.push_back(std::move(f));
  } else {
    f();
  }
}

void database::run_after_commit() {
  auto pending = std::move(after_commit_);
  after_commit_.clear();
  for (auto& f : pending)
    f();
}

// ---------------------------------------------------------------------------------------------
// transaction

// IMMEDIATE takes the write lock up front, so a transaction never fails half-way with
// SQLITE_BUSY when it upgrades from reading to writing.
transaction::transaction(database& db) : db_(db) {
  db_.exec("BEGIN IMMEDIATE");
}

transaction::~transaction() {
  if (done_) return;
  db_.after_commit_.clear();  // what was to follow a commit follows nothing now
  // Some errors (SQLITE_FULL, SQLITE_IOERR, ...) roll the transaction back by themselves; a
  // second ROLLBACK would only fail. Errors are ignored: a destructor must not throw.
  if (db_.in_transaction()) sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void transaction::commit() {
  // done_ is set only after success: a failed COMMIT (a deferred constraint, SQLITE_BUSY) leaves
  // the transaction open, and the destructor then rolls it back.
  db_.exec("COMMIT");
  done_ = true;
  db_.run_after_commit();
}

}  // namespace idem::mock
