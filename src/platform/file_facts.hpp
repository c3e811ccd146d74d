#pragma once
// Internal: what a file is and its first bytes, read without an SQLite connection: POSIX stat and
// pread (file_facts_posix.cpp), Windows GetFileAttributesExW and ReadFile
// (file_facts_windows.cpp). The journal looks at its file with these before SQLite does.

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <system_error>

namespace idem::detail {

/// A file's kind and size, following symbolic links.
struct file_facts {
  bool regular = false;  ///< a plain file (not a folder, device, pipe or socket)
  std::uint64_t size = 0;
};

/// The facts of the file at `path` (UTF-8); on failure `ec` is set
/// (std::errc::no_such_file_or_directory when nothing is there, permission_denied, ...) and
/// the facts are empty.
[[nodiscard]] file_facts facts_of_file(const std::string& path, std::error_code& ec) noexcept;

/// Reads the first `out.size()` bytes of the file at `path` (fewer if it is shorter) into `out`;
/// the count read, or 0 with `ec` set.
[[nodiscard]] std::size_t read_file_start(const std::string& path, std::span<char> out,
                                          std::error_code& ec) noexcept;

}  // namespace idem::detail
