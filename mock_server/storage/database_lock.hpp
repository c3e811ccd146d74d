#pragma once
// One server per database file. A second idem-mock-server on the same --db would expire the
// first one's live leases at its start-up (they look abandoned) and then execute requests beside
// it, so the server holds an exclusive flock on `DB.lock` for as long as it runs. SQLite's own
// locks only serialise transactions; they cannot say "this file has an owner".

#include <string>

namespace idem::mock {

/// An exclusive, non-blocking flock on `CANONICAL + ".lock"`, held for the object's life, where
/// CANONICAL is `db_path` with its symlinks, "." and ".." resolved (the file SQLite opens): two
/// spellings of one database, a symlink among them, take the same lock. The lock file is opened
/// without following a symlink and without truncating it; the holder's pid is written into it
/// (for the message a second server shows) only once the lock is held. No lock (and no file) for
/// ":memory:" or an empty path. The lock file stays in place on release: removing it would race
/// with the next holder. (Two hard links to one database are two names: not covered.)
class database_lock {
 public:
  /// Throws std::runtime_error naming the file (and the holder's pid when known) if another
  /// process, or another server in this process, holds the lock, or if the lock file cannot be
  /// created, is a symlink, or is not a regular file with one name.
  explicit database_lock(const std::string& db_path);
  ~database_lock();
  database_lock(const database_lock&) = delete;
  database_lock& operator=(const database_lock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace idem::mock
