#pragma once
// Internal: the one-process-at-a-time lock of a journal: an exclusive lock on `PATH.lock` (flock
// on POSIX, LockFileEx on Windows: platform/locked_file.hpp), held for the journal's life, with the
// holder's pid written into it so that a second process can say who has the journal. Private to the
// idem library.

#include <string>
#include <system_error>

#include "platform/locked_file.hpp"

namespace idem::detail {

/// An exclusive, non-blocking lock on a lock file (created if missing). The lock belongs to the
/// open file, so a second lock of the same path fails even within one process.
/// The lock file is left in place on release (removing it would race with the next holder).
class journal_file_lock {
 public:
  journal_file_lock() = default;
  /// Takes the lock on `lock_path`. On failure the object holds nothing and `ec` is
  /// journal_errc::locked (with the holder's pid in `detail` when the lock file names it),
  /// read_only (the lock file cannot be created or opened for writing) or io.
  journal_file_lock(const std::string& lock_path, std::error_code& ec, std::string& detail);

  [[nodiscard]] bool held() const noexcept { return file_.is_open(); }

 private:
  locked_file file_;  // open only while locked
};

}  // namespace idem::detail
