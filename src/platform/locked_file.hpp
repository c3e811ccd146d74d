#pragma once
// Internal: a file held under an exclusive lock, on each system's own primitive: flock on POSIX
// (locked_file_posix.cpp), LockFileEx on Windows (locked_file_windows.cpp). The journal's
// one-process-at-a-time lock (store/sqlite/journal_file_lock.hpp) is made of it.

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace idem::detail {

/// An open file (read and write) that can be locked exclusively without waiting. The lock
/// belongs to this open file, not to the process: a second locked_file of the same path fails to
/// lock even within one process. Closing (the destructor) releases the lock; the file stays.
/// Errors are std::errc values where the system has one (so `ec == std::errc::...` compares
/// alike everywhere), with the system's own message.
class locked_file {
 public:
  locked_file() = default;
  ~locked_file() { close(); }
  locked_file(locked_file&& other) noexcept : handle_(std::exchange(other.handle_, closed)) {}
  locked_file& operator=(locked_file&& other) noexcept {
    if (this != &other) {
      close();
      handle_ = std::exchange(other.handle_, closed);
    }
    return *this;
  }
  locked_file(const locked_file&) = delete;
  locked_file& operator=(const locked_file&) = delete;

  /// Opens `path` (UTF-8), creating it if missing, never through a symbolic link (that is
  /// std::errc::too_many_symbolic_link_levels), not inherited by child processes.
  [[nodiscard]] std::error_code open(const std::string& path) noexcept;
  /// Takes the exclusive lock without waiting: std::errc::operation_would_block when another
  /// open file holds it.
  [[nodiscard]] std::error_code try_lock() noexcept;
  /// Up to `max` bytes from the start of the file ("" when it cannot be read). Readable by a
  /// process that does not hold the lock (on Windows the lock covers a byte far past the text).
  [[nodiscard]] std::string read_text(std::size_t max) const;
  /// Replaces the file's content with `text`, best effort.
  void replace_text(std::string_view text) noexcept;
  /// Closes the file, releasing the lock if held.
  void close() noexcept;

  [[nodiscard]] bool is_open() const noexcept { return handle_ != closed; }

 private:
  // A POSIX descriptor or a Windows HANDLE; -1 is both systems' "none" (INVALID_HANDLE_VALUE).
  static constexpr std::intptr_t closed = -1;
  std::intptr_t handle_ = closed;
};

}  // namespace idem::detail
