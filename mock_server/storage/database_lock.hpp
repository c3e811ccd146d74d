#pragma once
// One server per database file. A second idem-mock-server on the same --db would expire the
// first one's live leases at its start-up (they look abandoned) and then execute requests beside
// it, so the server holds an exclusive flock on `DB.lock` for as long as it runs. SQLite's own
// locks only serialise transactions; they cannot say "this file has an owner".

#include <string>

namespace idem::mock {

/// An exclusive, non-blocking flock on `db_path + ".lock"`, held for the object's life; the
/// holder's pid is written into the file for the message a second server shows. No lock (and no
/// file) for ":memory:" or an empty path. The lock file stays in place on release: removing it
/// would race with the next holder.
class database_lock {
 public:
  /// Throws std::runtime_error naming the file (and the holder's pid when known) if another
  /// process, or another server in this process, holds the lock, or if the lock file cannot be
  /// created.
  explicit database_lock(const std::string& db_path);
  ~database_lock();
  database_lock(const database_lock&) = delete;
  database_lock& operator=(const database_lock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace idem::mock
