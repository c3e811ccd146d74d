#ifdef _WIN32  // POSIX: file_facts_posix.cpp
#include "platform/file_facts.hpp"
#include "platform/windows_api.hpp"

namespace idem::detail {

file_facts facts_of_file(const std::string& path, std::error_code& ec) noexcept {
  std::wstring wide;
  try {
    wide = wide_text(path);
  } catch (...) {
    ec = std::make_error_code(std::errc::not_enough_memory);
    return {};
  }
  // Through a handle, so that a symbolic link is followed as stat follows it: no access asked
  // (attributes only), FILE_FLAG_BACKUP_SEMANTICS so that a folder opens too (and is reported).
  const HANDLE file =
      ::CreateFileW(wide.c_str(), 0, FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE,
                    nullptr, OPEN_EXISTING, FILE_FLAG_BACKUP_SEMANTICS, nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    ec = windows_error(::GetLastError());
    return {};
  }
  BY_HANDLE_FILE_INFORMATION info{};
  const BOOL got = ::GetFileInformationByHandle(file, &info);
  const DWORD error = ::GetLastError();
  const DWORD type = ::GetFileType(file);
  ::CloseHandle(file);
  if (!got) {
    ec = windows_error(error);
    return {};
  }
  ec = {};
  return {
      .regular = type == FILE_TYPE_DISK && (info.dwFileAttributes & FILE_ATTRIBUTE_DIRECTORY) == 0,
      .size = std::uint64_t{info.nFileSizeHigh} << 32 | info.nFileSizeLow};
}

std::size_t read_file_start(const std::string& path, std::span<char> out,
                            std::error_code& ec) noexcept {
  std::wstring wide;
  try {
    wide = wide_text(path);
  } catch (...) {
    ec = std::make_error_code(std::errc::not_enough_memory);
    return 0;
  }
  // Shared every way: SQLite may have the file open at the same time.
  const HANDLE file = ::CreateFileW(wide.c_str(), GENERIC_READ,
                                    FILE_SHARE_READ | FILE_SHARE_WRITE | FILE_SHARE_DELETE, nullptr,
                                    OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, nullptr);
  if (file == INVALID_HANDLE_VALUE) {
    ec = windows_error(::GetLastError());
    return 0;
  }
  DWORD n = 0;
  const BOOL read = ::ReadFile(file, out.data(), static_cast<DWORD>(out.size()), &n, nullptr);
  const DWORD error = ::GetLastError();
  ::CloseHandle(file);
  if (!read) {
    ec = windows_error(error);
    return 0;
  }
  ec = {};
  return n;
}

}  // namespace idem::detail
#endif  // _WIN32
