#include "idem_soak/sqlite_reader.hpp"

#include <memory>
#include <stdexcept>

namespace idem::soak {

std::string sqlite_row::text(int column) const {
  const auto* p = sqlite3_column_text(s_, column);
  const int n = sqlite3_column_bytes(s_, column);
  return p ? std::string(reinterpret_cast<const char*>(p), static_cast<std::size_t>(n))
           : std::string();
}

std::int64_t sqlite_row::integer(int column) const noexcept {
  return sqlite3_column_int64(s_, column);
}

bool sqlite_row::is_null(int column) const noexcept {
  return sqlite3_column_type(s_, column) == SQLITE_NULL;
}

sqlite_reader::sqlite_reader(const std::string& path) : path_(path) {
  if (sqlite3_open_v2(path.c_str(), &db_, SQLITE_OPEN_READONLY, nullptr) != SQLITE_OK) {
    std::string why = db_ ? sqlite3_errmsg(db_) : "out of memory";
    sqlite3_close(db_);
    throw std::runtime_error("cannot open " + path + " read-only: " + why);
  }
  // The writer may hold a lock for a moment (a checkpoint): wait rather than fail.
  sqlite3_busy_timeout(db_, 5000);
}

sqlite_reader::~sqlite_reader() {
  sqlite3_close(db_);
}

void sqlite_reader::each(const std::string& sql,
                         const std::function<void(const sqlite_row&)>& on_row) const {
  sqlite3_stmt* raw = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &raw, nullptr) != SQLITE_OK) {
    throw std::runtime_error(path_ + ": " + sqlite3_errmsg(db_) + " in: " + sql);
  }
  const std::unique_ptr<sqlite3_stmt, int (*)(sqlite3_stmt*)> s{raw, &sqlite3_finalize};
  int rc = SQLITE_OK;
  while ((rc = sqlite3_step(s.get())) == SQLITE_ROW)
    on_row(sqlite_row{s.get()});
  if (rc != SQLITE_DONE) throw std::runtime_error(path_ + ": " + sqlite3_errmsg(db_));
}

std::int64_t sqlite_reader::scalar(const std::string& sql) const {
  std::int64_t value = 0;
  bool first = true;
  each(sql, [&](const sqlite_row& r) {
    if (first) value = r.integer(0);
    first = false;
  });
  return value;
}

}  // namespace idem::soak
