#include "mock_server/storage/database_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <system_error>

namespace idem::mock {

namespace {

// The file the path names, however it is spelled: symlinks (the file's own included) and "."
// or ".." resolved, as SQLite resolves them before it opens the file. A part that does not
// exist yet (a database about to be created) is kept as written, normalised.
std::string canonical_name(const std::string& db_path) {
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(db_path, ec);
  if (ec) throw std::runtime_error("cannot resolve the path " + db_path + ": " + ec.message());
  return canonical.string();
}

// The pid of the holder, as the file says it (empty when it says nothing usable).
std::string holder_pid(int fd) {
  std::array<char, 24> holder{};
  const auto n = ::pread(fd, holder.data(), holder.size() - 1, 0);
  std::string pid = n > 0 ? std::string(holder.data(), static_cast<std::size_t>(n)) : "";
  if (!pid.empty() && pid.back() == '\n') pid.pop_back();
  if (pid.find_first_not_of("0123456789") != std::string::npos) pid.clear();
  return pid;
}

}  // namespace

database_lock::database_lock(const std::string& db_path) {
  if (db_path.empty() || db_path == ":memory:") return;
  const std::string path = canonical_name(db_path) + ".lock";
  // O_NOFOLLOW: a symlink in the lock file's place must not make us lock, and then write over,
  // the file it points to. No O_TRUNC: the file is the holder's until we hold the lock.
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd < 0) {
    const int err = errno;
    if (err == ELOOP) {
      throw std::runtime_error("the lock file " + path +
                               " is a symbolic link; remove it (the server creates its own)");
    }
    throw std::runtime_error("cannot create the lock file " + path + ": " + std::strerror(err));
  }
  // A lock file that is not a plain file of its own (a hard link to another file, a device)
  // would be truncated below: refuse it rather than write into what it really is.
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_nlink != 1) {
    ::close(fd);
    throw std::runtime_error("the lock file " + path +
                             " is not a regular file with one name; remove it");
  }
  // flock locks belong to the open file description: a second server in this same process is
  // refused too.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    const std::string pid = holder_pid(fd);
    ::close(fd);
    if (err != EWOULDBLOCK) {
      throw std::runtime_error("cannot lock " + path + ": " + std::strerror(err));
    }
    throw std::runtime_error("the database " + db_path + " is in use by another idem-mock-server" +
                             (pid.empty() ? std::string{} : " (pid " + pid + ")") +
                             "; give each server its own --db");
  }
  // Only the holder writes its pid, and only now that it holds the lock.
  const std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) {
    [[maybe_unused]] const auto written = ::pwrite(fd, pid.data(), pid.size(), 0);
  }
  fd_ = fd;
}

database_lock::~database_lock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace idem::mock
