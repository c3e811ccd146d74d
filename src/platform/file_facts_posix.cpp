#ifndef _WIN32  // Windows: file_facts_windows.cpp
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "platform/file_facts.hpp"

namespace idem::detail {

file_facts facts_of_file(const std::string& path, std::error_code& ec) noexcept {
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) {
    ec = {errno, std::generic_category()};
    return {};
  }
  ec = {};
  return {.regular = S_ISREG(st.st_mode), .size = static_cast<std::uint64_t>(st.st_size)};
}

std::size_t read_file_start(const std::string& path, std::span<char> out,
                            std::error_code& ec) noexcept {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    ec = {errno, std::generic_category()};
    return 0;
  }
  const ssize_t n = ::pread(fd, out.data(), out.size(), 0);
  const int err = errno;
  ::close(fd);
  if (n < 0) {
    ec = {err, std::generic_category()};
    return 0;
  }
  ec = {};
  return static_cast<std::size_t>(n);
}

}  // namespace idem::detail
#endif  // _WIN32
