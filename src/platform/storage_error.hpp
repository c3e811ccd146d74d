#pragma once
// Internal: what the system error behind a failed SQLite call means for a journal. SQLite reports
// the system's own number (sqlite3_system_errno): errno on POSIX (storage_error_posix.cpp), a
// GetLastError() code on Windows (storage_error_windows.cpp), so it is read per system.

namespace idem::detail {

/// The kinds of storage failure a journal reports apart (journal_errc::full, read_only).
enum class storage_failure {
  none_known,  ///< no number, or one without a kind of its own: an I/O error
  full,        ///< the disk or the user's quota is full
  denied,      ///< no permission, or a read-only file system
};

/// The kind of `system_error`, a number from sqlite3_system_errno.
[[nodiscard]] storage_failure storage_failure_of(int system_error) noexcept;

}  // namespace idem::detail
