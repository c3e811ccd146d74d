#ifdef _WIN32  // POSIX: locked_file_posix.cpp
#include "platform/locked_file.hpp"
#include "platform/windows_api.hpp"

namespace idem::detail {
namespace {

// LockFileEx locks are mandatory for the bytes they cover: the lock covers one byte far past the
// text (locking beyond the end of a file is allowed), so that a second process can still read the
// holder's text from the start of the file.
constexpr DWORD lock_offset_high = 0x7fffffff;

HANDLE handle_of(std::intptr_t handle) noexcept {
  return reinterpret_cast<HANDLE>(handle);
}

OVERLAPPED at(DWORD offset_high, DWORD offset) noexcept {
  OVERLAPPED where{};
  where.Offset = offset;
  where.OffsetHigh = offset_high;
  return where;
}

}  // namespace

std::error_code locked_file::open(const std::string& path) noexcept {
  close();
  std::wstring wide;
  try {
    wide = wide_text(path);
  } catch (...) {
    return std::make_error_code(std::errc::not_enough_memory);
  }
  // A null security descriptor: the handle is not inherited. FILE_FLAG_OPEN_REPARSE_POINT opens
  // a symbolic link itself (refused below) instead of the file it names.
  const HANDLE file =
      ::CreateFileW(wide.c_str(), GENERIC_READ | GENERIC_WRITE,
                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr, OPEN_ALWAYS,
                    FILE_ATTRIBUTE_NORMAL | FILE_FLAG_OPEN_REPARSE_POINT, nullptr);
  if (file == INVALID_HANDLE_VALUE) return windows_error(::GetLastError());
  BY_HANDLE_FILE_INFORMATION info{};
  if (::GetFileInformationByHandle(file, &info) &&
      (info.dwFileAttributes & FILE_ATTRIBUTE_REPARSE_POINT) != 0) {
    ::CloseHandle(file);
    return std::make_error_code(std::errc::too_many_symbolic_link_levels);
  }
  handle_ = reinterpret_cast<std::intptr_t>(file);
  return {};
}

std::error_code locked_file::try_lock() noexcept {
  OVERLAPPED where = at(lock_offset_high, 0);
  if (!::LockFileEx(handle_of(handle_), LOCKFILE_EXCLUSIVE_LOCK | LOCKFILE_FAIL_IMMEDIATELY, 0, 1,
                    0, &where))
    return windows_error(::GetLastError());
  return {};
}

std::string locked_file::read_text(std::size_t max) const {
  std::string text(max, '\0');
  OVERLAPPED where = at(0, 0);
  DWORD n = 0;
  if (!::ReadFile(handle_of(handle_), text.data(), static_cast<DWORD>(max), &n, &where)) n = 0;
  text.resize(n);
  return text;
}

void locked_file::replace_text(std::string_view text) noexcept {
  const HANDLE file = handle_of(handle_);
  LARGE_INTEGER start{};
  if (!::SetFilePointerEx(file, start, nullptr, FILE_BEGIN) || !::SetEndOfFile(file)) return;
  OVERLAPPED where = at(0, 0);
  DWORD written = 0;
  ::WriteFile(file, text.data(), static_cast<DWORD>(text.size()), &written, &where);
}

void locked_file::close() noexcept {
  if (handle_ == closed) return;
  // Released explicitly: Windows frees a closed handle's locks only "when resources permit".
  OVERLAPPED where = at(lock_offset_high, 0);
  ::UnlockFileEx(handle_of(handle_), 0, 1, 0, &where);  // fails harmlessly when not locked
  ::CloseHandle(handle_of(handle_));
  handle_ = closed;
}

}  // namespace idem::detail
#endif  // _WIN32
