#include "store/sqlite/sqlite_connection.hpp"

#include "idem/journal_error.hpp"
#include "platform/storage_error.hpp"

namespace idem::detail {

std::error_code journal_error_of(int sqlite_rc, int sys_errno) noexcept {
  const storage_failure failure = storage_failure_of(sys_errno);  // errno, or Windows' code
  switch (sqlite_rc & 0xff) {
    case SQLITE_OK:
    case SQLITE_DONE:
    case SQLITE_ROW:
      return {};
    case SQLITE_FULL:
      return journal_errc::full;
    case SQLITE_READONLY:
    case SQLITE_PERM:
    case SQLITE_AUTH:
      return journal_errc::read_only;
    case SQLITE_CORRUPT:
    case SQLITE_NOTADB:
      return journal_errc::corrupt;
    case SQLITE_CANTOPEN:
    case SQLITE_IOERR:
      if (failure == storage_failure::full) return journal_errc::full;
      if (failure == storage_failure::denied) return journal_errc::read_only;
      return journal_errc::io;
    default:
      return journal_errc::io;
  }
}

sqlite_connection::sqlite_connection(const std::string& path, int flags, int& rc, const char* vfs) {
  rc = sqlite3_open_v2(path.c_str(), &db_, flags, vfs);
  if (db_) sqlite3_extended_result_codes(db_, 1);
}

sqlite_connection::~sqlite_connection() {
  sqlite3_close_v2(db_);
}

sqlite_connection& sqlite_connection::operator=(sqlite_connection&& other) noexcept {
  if (this != &other) {
    sqlite3_close_v2(db_);
    db_ = other.db_;
    other.db_ = nullptr;
  }
  return *this;
}

int sqlite_connection::exec(const char* sql) noexcept {
  return sqlite3_exec(db_, sql, nullptr, nullptr, nullptr);
}

std::string sqlite_connection::message() const {
  return db_ ? sqlite3_errmsg(db_) : "out of memory";
}

std::error_code sqlite_connection::error_of(int rc) const noexcept {
  return journal_error_of(rc, db_ ? sqlite3_system_errno(db_) : 0);
}

std::optional<std::int64_t> sqlite_connection::pragma_int(const char* name, int& rc) noexcept {
  sqlite3_stmt* stmt = nullptr;
  const std::string sql = std::string("PRAGMA ") + name;
  rc = sqlite3_prepare_v2(db_, sql.c_str(), -1, &stmt, nullptr);
  std::optional<std::int64_t> value;
  if (rc == SQLITE_OK) {
    rc = sqlite3_step(stmt);
    if (rc == SQLITE_ROW) {
      value = sqlite3_column_int64(stmt, 0);
      rc = SQLITE_OK;
    }
  }
  sqlite3_finalize(stmt);
  return value;
}

sqlite_statement::sqlite_statement(sqlite3* db, std::string_view sql, int& rc) {
  rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()), SQLITE_PREPARE_PERSISTENT,
                          &stmt_, nullptr);
}

sqlite_statement& sqlite_statement::operator=(sqlite_statement&& other) noexcept {
  if (this != &other) {
    sqlite3_finalize(stmt_);
    stmt_ = other.stmt_;
    other.stmt_ = nullptr;
  }
  return *this;
}

void sqlite_statement::bind_text(int i, std::string_view v) noexcept {
  sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8);
}

void sqlite_statement::bind_blob(int i, std::string_view v) noexcept {
  sqlite3_bind_blob64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT);
}

void sqlite_statement::bind_text_ref(int i, std::string_view v) noexcept {
  sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_STATIC, SQLITE_UTF8);
}

void sqlite_statement::bind_blob_ref(int i, std::string_view v) noexcept {
  sqlite3_bind_blob64(stmt_, i, v.data(), v.size(), SQLITE_STATIC);
}

void sqlite_statement::bind_optional_text_ref(int i, const std::optional<std::string>& v) noexcept {
  if (v)
    bind_text_ref(i, *v);
  else
    bind_null(i);
}

void sqlite_statement::bind_optional_text(int i, const std::optional<std::string>& v) noexcept {
  if (v)
    bind_text(i, *v);
  else
    bind_null(i);
}

void sqlite_statement::bind_optional(int i, const std::optional<std::int64_t>& v) noexcept {
  if (v)
    bind(i, *v);
  else
    bind_null(i);
}

std::string sqlite_statement::column_text(int i) const {
  // Blob and text columns alike: the bytes as stored.
  const void* p = sqlite3_column_blob(stmt_, i);
  const int n = sqlite3_column_bytes(stmt_, i);
  return p ? std::string(static_cast<const char*>(p), static_cast<std::size_t>(n)) : std::string();
}

std::optional<std::string> sqlite_statement::column_optional_text(int i) const {
  if (column_is_null(i)) return std::nullopt;
  return column_text(i);
}

std::optional<std::int64_t> sqlite_statement::column_optional_int(int i) const noexcept {
  if (column_is_null(i)) return std::nullopt;
  return column_int(i);
}

}  // namespace idem::detail
