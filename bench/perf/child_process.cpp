#include "child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace perf {
namespace {

using clock_type = std::chrono::steady_clock;

[[noreturn]] void fail(const std::string& what) {
  throw std::runtime_error(what + ": " + std::strerror(errno));
}

// Reads what is there (or waits up to `timeout_ms` for it); false at end of file.
bool read_some(int fd, std::string& into, int timeout_ms) {
  pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
  if (::poll(&p, 1, timeout_ms) <= 0) return true;
  char buf[4096];
  const ssize_t n = ::read(fd, buf, sizeof buf);
  if (n <= 0) return n < 0 && errno == EINTR;
  into.append(buf, static_cast<std::size_t>(n));
  return true;
}

}  // namespace

child_process::child_process(const std::vector<std::string>& argv, const std::string& stderr_path,
                             int cpu) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) fail("pipe");
  const int err_fd = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (err_fd < 0) fail("open " + stderr_path);
  std::vector<char*> args;
  for (const auto& a : argv)
    args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  started_ = clock_type::now();
  pid_ = ::fork();
  if (pid_ < 0) fail("fork");
  if (pid_ == 0) {
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    if (cpu >= 0) {
      cpu_set_t on;
      CPU_ZERO(&on);
      CPU_SET(cpu, &on);
      // A child that cannot be pinned is not measured as the report says: it does not run.
      if (::sched_setaffinity(0, sizeof on, &on) != 0) {
        const char msg[] = "idem_perf: sched_setaffinity failed\n";
        (void)!::write(STDERR_FILENO, msg, sizeof msg - 1);
        ::_exit(126);
      }
    }
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  ::close(err_fd);
  out_fd_ = fds[0];
}

child_process::~child_process() {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    (void)reap(true);
  }
  if (out_fd_ >= 0) ::close(out_fd_);
}

std::string child_process::first_line(std::chrono::milliseconds timeout) {
  const auto until = clock_type::now() + timeout;
  while (out_.find('\n') == std::string::npos) {
    if (clock_type::now() >= until) throw std::runtime_error("no first line from the child");
    if (!read_some(out_fd_, out_, 100)) throw std::runtime_error("the child ended without a line");
  }
  const auto end = out_.find('\n');
  std::string line = out_.substr(0, end);
  out_.erase(0, end + 1);
  return line;
}

child_usage child_process::wait() {
  while (read_some(out_fd_, out_, 1000)) {
  }
  return reap(true);
}

child_usage child_process::stop(std::chrono::milliseconds grace) {
  ::kill(pid_, SIGTERM);
  const auto until = clock_type::now() + grace;
  while (clock_type::now() < until) {
    child_usage u = reap(false);
    if (pid_ <= 0) return u;
    std::this_thread::sleep_for(std::chrono::milliseconds{10});
  }
  ::kill(pid_, SIGKILL);
  return reap(true);
}

child_usage child_process::reap(bool block) {
  child_usage u;
  int status = 0;
  rusage r{};
  const pid_t got = ::wait4(pid_, &status, block ? 0 : WNOHANG, &r);
  if (got != pid_) return u;
  pid_ = -1;
  u.wall_s = std::chrono::duration<double>(clock_type::now() - started_).count();
  u.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  u.cpu_s = static_cast<double>(r.ru_utime.tv_sec + r.ru_stime.tv_sec) +
            static_cast<double>(r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e6;
  u.max_rss_kib = r.ru_maxrss;
  u.out = std::move(out_);
  return u;
}

child_usage run_to_end(const std::vector<std::string>& argv, const std::string& stderr_path,
                       int cpu) {
  child_process p{argv, stderr_path, cpu};
  return p.wait();
}

}  // namespace perf
