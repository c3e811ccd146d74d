#ifndef _WIN32  // Windows: locked_file_windows.cpp
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>

#include "platform/locked_file.hpp"

namespace idem::detail {
namespace {

std::error_code last_error() noexcept {
  return {errno, std::generic_category()};
}

}  // namespace

std::error_code locked_file::open(const std::string& path) noexcept {
  close();
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) return last_error();
  handle_ = fd;
  return {};
}

std::error_code locked_file::try_lock() noexcept {
  if (::flock(static_cast<int>(handle_), LOCK_EX | LOCK_NB) != 0) return last_error();
  return {};
}

std::string locked_file::read_text(std::size_t max) const {
  std::string text(max, '\0');
  const ssize_t n = ::pread(static_cast<int>(handle_), text.data(), max, 0);
  text.resize(n > 0 ? static_cast<std::size_t>(n) : 0);
  return text;
}

void locked_file::replace_text(std::string_view text) noexcept {
  const int fd = static_cast<int>(handle_);
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd, text.data(), text.size(), 0);
  }
}

void locked_file::close() noexcept {
  if (handle_ != closed) ::close(static_cast<int>(handle_));  // releases the flock
  handle_ = closed;
}

}  // namespace idem::detail
#endif  // _WIN32
