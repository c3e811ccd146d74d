#include "store/sqlite/journal_file_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "idem/journal_error.hpp"

namespace idem::detail {
namespace {

// The pid the current holder wrote into the lock file, or "" if it cannot be read.
std::string holder_pid(int fd) {
  char buf[32] = {};
  const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
  if (n <= 0) return {};
  std::string pid(buf, static_cast<std::size_t>(n));
  while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' '))
    pid.pop_back();
  for (char c : pid)
    if (c < '0' || c > '9') return {};
  return pid;
}

}  // namespace

journal_file_lock::journal_file_lock(const std::string& lock_path, std::error_code& ec,
                                     std::string& detail) {
  // Never through a symlink: the lock file is written to (the holder's pid), and a link planted
  // there would have that write land in whatever file it names.
  const int fd = ::open(lock_path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    const int err = errno;
    const bool denied = err == EACCES || err == EPERM || err == EROFS;
    ec = denied ? journal_errc::read_only : journal_errc::io;
    detail = "cannot create or open the lock file " + lock_path + ": " +
             (err == ELOOP ? std::string("it is a symbolic link") : std::strerror(err));
    return;
  }
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK) {
      ec = journal_errc::locked;
      const std::string pid = holder_pid(fd);
      detail = lock_path + " is held by another process" +
               (pid.empty() ? std::string() : " (pid " + pid + ")");
    } else {
      ec = journal_errc::io;
      detail = "cannot lock " + lock_path + ": " + std::strerror(err);
    }
    ::close(fd);
    return;
  }
  // Best effort: the pid only serves the message a second process shows.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const ssize_t written = ::pwrite(fd, pid.data(), pid.size(), 0);
  }
  fd_ = fd;
  ec = {};
}

journal_file_lock::~journal_file_lock() {
  if (fd_ >= 0) ::close(fd_);  // closing the description releases the flock
}

journal_file_lock& journal_file_lock::operator=(journal_file_lock&& other) noexcept {
  if (this != &other) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = other.fd_;
    other.fd_ = -1;
  }
  return *this;
}

}  // namespace idem::detail
