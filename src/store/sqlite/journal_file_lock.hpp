#pragma once
// Internal: the one-process-at-a-time lock of a journal: an exclusive flock on `PATH.lock`,
// held for the journal's life, with the holder's pid written into it so that a second process
// can say who has the journal. Private to the idem library.

#include <string>
#include <system_error>

namespace idem::detail {

/// An exclusive, non-blocking flock on a lock file (created if missing). flock locks belong to
/// the open file description, so a second lock of the same path fails even within one process.
/// The lock file is left in place on release (removing it would race with the next holder).
class journal_file_lock {
 public:
  journal_file_lock() = default;
  /// Takes the lock on `lock_path`. On failure the object holds nothing and `ec` is
  /// journal_errc::locked (with the holder's pid in `detail` when the lock file names it),
  /// read_only (the lock file cannot be created or opened for writing) or io.
  journal_file_lock(const std::string& lock_path, std::error_code& ec, std::string& detail);
  ~journal_file_lock();
  journal_file_lock(journal_file_lock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
  journal_file_lock& operator=(journal_file_lock&& other) noexcept;
  journal_file_lock(const journal_file_lock&) = delete;
  journal_file_lock& operator=(const journal_file_lock&) = delete;

  [[nodiscard]] bool held() const noexcept { return fd_ >= 0; }

 private:
  int fd_ = -1;
};

}  // namespace idem::detail
