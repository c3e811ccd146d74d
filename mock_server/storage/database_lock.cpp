#include "mock_server/storage/database_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace idem::mock {

database_lock::database_lock(const std::string& db_path) {
  if (db_path.empty() || db_path == ":memory:") return;
  const std::string path = db_path + ".lock";
  const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    throw std::runtime_error("cannot create the lock file " + path + ": " + std::strerror(errno));
  }
  // flock locks belong to the open file description: a second server in this same process is
  // refused too.
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    std::array<char, 24> holder{};
    const auto n = ::pread(fd, holder.data(), holder.size() - 1, 0);
    std::string pid = n > 0 ? std::string(holder.data(), static_cast<std::size_t>(n)) : "";
    if (!pid.empty() && pid.back() == '\n') pid.pop_back();
    if (pid.find_first_not_of("0123456789") != std::string::npos) pid.clear();
    ::close(fd);
    if (err != EWOULDBLOCK) {
      throw std::runtime_error("cannot lock " + path + ": " + std::strerror(err));
    }
    throw std::runtime_error("the database " + db_path + " is in use by another idem-mock-server" +
                             (pid.empty() ? std::string{} : " (pid " + pid + ")") +
                             "; give each server its own --db");
  }
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
