#ifdef _WIN32  // the Windows side's helpers (windows_api.hpp)
#include "platform/windows_api.hpp"

#include <climits>

namespace idem::detail {

std::wstring wide_text(const std::string& text) {
  if (text.empty() || text.size() > INT_MAX) return {};
  const int size = static_cast<int>(text.size());
  const int n = ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text.data(), size, nullptr, 0);
  if (n <= 0) return {};
  std::wstring wide(static_cast<std::size_t>(n), L'\0');
  ::MultiByteToWideChar(CP_UTF8, MB_ERR_INVALID_CHARS, text.data(), size, wide.data(), n);
  return wide;
}

std::error_code windows_error(DWORD code) noexcept {
  switch (code) {
    case ERROR_FILE_NOT_FOUND:
    case ERROR_PATH_NOT_FOUND:
      return std::make_error_code(std::errc::no_such_file_or_directory);
    case ERROR_ACCESS_DENIED:
    case ERROR_SHARING_VIOLATION:
      return std::make_error_code(std::errc::permission_denied);
    case ERROR_WRITE_PROTECT:
      return std::make_error_code(std::errc::read_only_file_system);
    case ERROR_LOCK_VIOLATION:  // LockFileEx with LOCKFILE_FAIL_IMMEDIATELY: held elsewhere
      return std::make_error_code(std::errc::operation_would_block);
    default:
      return {static_cast<int>(code), std::system_category()};
  }
}

}  // namespace idem::detail
#endif  // _WIN32
