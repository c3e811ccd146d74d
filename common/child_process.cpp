#include "common/child_process.hpp"

#include "common/child_launch.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <stdexcept>

extern char** environ;

namespace idem::common {
namespace {

using clock = std::chrono::steady_clock;

int millis_left(clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1'000'000));
}

}  // namespace

int child_exit::exit_code() const noexcept {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

int child_exit::signal() const noexcept {
  return WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
}

std::string child_exit::describe() const {
  return describe_wait_status(wait_status);
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

child_process child_process::start(const child_spec& spec, std::error_code& ec, std::string& what) {
  child_process child;
  child.started_ = clock::now();
  const detail::launched l = detail::launch(spec, ec, what);
  if (ec) return {};
  child.pid_ = l.pid;
  // A pidfd becomes readable when the child ends (Linux 5.3): wait_for needs no polling loop.
  child.pidfd_ = static_cast<int>(::syscall(SYS_pidfd_open, child.pid_, 0));
  child.out_.fd = l.stdout_pipe;
  child.err_.fd = l.stderr_pipe;
  return child;
}

child_process::child_process(const child_spec& spec) {
  std::error_code ec;
  std::string what;
  *this = start(spec, ec, what);
  if (ec) throw std::system_error(ec, what);
}

child_process::~child_process() {
  release();
}

child_process::child_process(child_process&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      pidfd_(std::exchange(other.pidfd_, -1)),
      out_(std::exchange(other.out_, {})),
      err_(std::exchange(other.err_, {})),
      started_(other.started_),
      exit_(std::exchange(other.exit_, std::nullopt)) {}

child_process& child_process::operator=(child_process&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    pidfd_ = std::exchange(other.pidfd_, -1);
    out_ = std::exchange(other.out_, {});
    err_ = std::exchange(other.err_, {});
    started_ = other.started_;
    exit_ = std::exchange(other.exit_, std::nullopt);
  }
  return *this;
}

void child_process::release() noexcept {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    while (::waitpid(pid_, nullptr, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  for (int* fd : {&pidfd_, &out_.fd, &err_.fd}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
}

bool child_process::fill(stream& s, clock::time_point deadline) {
  pollfd p{s.fd, POLLIN, 0};
  const int ready = ::poll(&p, 1, millis_left(deadline));
  if (ready < 0 && errno == EINTR) return true;
  if (ready <= 0) return false;
  std::array<char, 4096> buf{};
  const auto n = ::read(s.fd, buf.data(), buf.size());
  if (n > 0) {
    s.text.append(buf.data(), static_cast<std::size_t>(n));
  } else if (n == 0 || errno != EINTR) {
    ::close(s.fd);  // its end: the child exited (or closed the stream)
    s.fd = -1;
  }
  return true;
}

std::optional<std::string> child_process::read_line(std::chrono::milliseconds limit) {
  const auto deadline = clock::now() + limit;
  while (true) {
    if (const auto end = out_.text.find('\n'); end != std::string::npos) {
      std::string line = out_.text.substr(0, end);
      out_.text.erase(0, end + 1);
      return line;
    }
    if (out_.fd < 0 || !fill(out_, deadline)) return std::nullopt;
  }
}

bool child_process::read_to_end(std::chrono::milliseconds limit) {
  const auto deadline = clock::now() + limit;
  while (out_.fd >= 0 || err_.fd >= 0) {
    // One of them may stay silent while the other fills: fill whichever has something.
    std::array<pollfd, 2> fds{pollfd{out_.fd, POLLIN, 0}, pollfd{err_.fd, POLLIN, 0}};
    const int ready = ::poll(fds.data(), fds.size(), millis_left(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) return false;
    if (fds[0].revents != 0) fill(out_, deadline);
    if (fds[1].revents != 0) fill(err_, deadline);
  }
  return true;
}

bool child_process::reap(int options) {
  if (pid_ <= 0) return exit_.has_value();
  int status = 0;
  rusage usage{};
  pid_t got = -1;
  while ((got = ::wait4(pid_, &status, options, &usage)) < 0 && errno == EINTR) {
  }
  if (got != pid_) return false;
  const auto seconds = [](const timeval& t) {
    return std::chrono::duration<double>(static_cast<double>(t.tv_sec) +
                                         static_cast<double>(t.tv_usec) / 1e6);
  };
  exit_ = child_exit{.wait_status = status,
                     .wall = clock::now() - started_,
                     .cpu = seconds(usage.ru_utime) + seconds(usage.ru_stime),
                     .max_rss_kib = usage.ru_maxrss,
                     .bytes_written = static_cast<std::uint64_t>(usage.ru_oublock) * 512};
  pid_ = -1;
  if (pidfd_ >= 0) ::close(pidfd_);
  pidfd_ = -1;
  return true;
}

std::optional<child_exit> child_process::poll() {
  reap(WNOHANG);
  return exit_;
}

child_exit child_process::wait() {
  if (pid_ <= 0 && !exit_) throw std::logic_error("child_process::wait: no child");
  reap(0);
  return *exit_;
}

std::optional<child_exit> child_process::wait_for(std::chrono::milliseconds limit) {
  if (pid_ > 0 && pidfd_ >= 0) {
    const auto deadline = clock::now() + limit;
    int ready = 0;
    do {
      pollfd p{pidfd_, POLLIN, 0};
      ready = ::poll(&p, 1, millis_left(deadline));
    } while (ready < 0 && errno == EINTR);
    if (ready == 0) return std::nullopt;
  }
  // Ended (or no pidfd on this kernel: then the wait has no limit).
  if (pid_ > 0) reap(0);
  return exit_;
}

void child_process::signal(int signo) noexcept {
  if (pid_ > 0) ::kill(pid_, signo);
}

child_exit child_process::stop(int signo, std::chrono::milliseconds grace) {
  if (poll()) return *exit_;
  signal(signo);
  if (auto ended = wait_for(grace)) return *ended;
  return kill();
}

child_exit child_process::kill() {
  signal(SIGKILL);
  return wait();
}

}  // namespace idem::common
