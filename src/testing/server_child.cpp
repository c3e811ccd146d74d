#include "testing/server_child.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <utility>

extern char** environ;

namespace idem::kit::detail {
namespace {

using clock = std::chrono::steady_clock;

int millis_left(clock::time_point deadline) {
  const auto left =
      std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(std::min<long long>(left, 1'000'000));
}

// posix_spawn's file actions and attributes, destroyed on every path.
struct spawn_setup {
  posix_spawn_file_actions_t actions{};
  bool ok = false;
  spawn_setup() { ok = ::posix_spawn_file_actions_init(&actions) == 0; }
  ~spawn_setup() {
    if (ok) ::posix_spawn_file_actions_destroy(&actions);
  }
  spawn_setup(const spawn_setup&) = delete;
  spawn_setup& operator=(const spawn_setup&) = delete;
};

mock_error spawn_error(const std::string& what, int err) {
  return mock_error{mock_errc::start_failed, what + ": " + std::strerror(err)};
}

}  // namespace

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exited with status " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "ended with wait status " + std::to_string(status);
}

mock_result<server_child> server_child::spawn(const std::string& binary,
                                              const std::vector<std::string>& args,
                                              const std::string& stderr_path) {
  int fds[2];
  // Close-on-exec: no other child of the test inherits this pipe (the dup2 below clears the
  // flag on the child's own stdout).
  if (::pipe2(fds, O_CLOEXEC) != 0) return spawn_error("pipe", errno);
  spawn_setup setup;
  int err = setup.ok ? 0 : ENOMEM;
  if (err == 0) {
    err =
        ::posix_spawn_file_actions_addopen(&setup.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  if (err == 0) err = ::posix_spawn_file_actions_adddup2(&setup.actions, fds[1], STDOUT_FILENO);
  if (err == 0) {
    err = ::posix_spawn_file_actions_addopen(&setup.actions, STDERR_FILENO, stderr_path.c_str(),
                                             O_WRONLY | O_CREAT | O_APPEND, 0600);
  }
  std::vector<std::string> storage{binary};
  storage.insert(storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : storage)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = -1;
  if (err == 0)
    err = ::posix_spawn(&pid, binary.c_str(), &setup.actions, nullptr, argv.data(), environ);
  ::close(fds[1]);
  if (err != 0) {
    ::close(fds[0]);
    return spawn_error("cannot run " + binary, err);
  }
  return server_child{pid, fds[0]};
}

server_child::~server_child() {
  release();
}

server_child::server_child(server_child&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      stdout_fd_(std::exchange(other.stdout_fd_, -1)),
      status_(other.status_) {}

server_child& server_child::operator=(server_child&& other) noexcept {
  if (this != &other) {
    release();
    pid_ = std::exchange(other.pid_, -1);
    stdout_fd_ = std::exchange(other.stdout_fd_, -1);
    status_ = other.status_;
  }
  return *this;
}

void server_child::release() noexcept {
  if (pid_ > 0) {
    ::kill(pid_, SIGKILL);
    int status = 0;
    while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  stdout_fd_ = -1;
}

mock_result<std::string> server_child::first_line(std::chrono::milliseconds limit) {
  const auto deadline = clock::now() + limit;
  std::string line;
  while (true) {
    pollfd p{stdout_fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, millis_left(deadline));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) {
      return mock_error{mock_errc::start_timed_out,
                        "no address within " + std::to_string(limit.count()) + " ms"};
    }
    char c = 0;
    const auto n = ::read(stdout_fd_, &c, 1);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const auto status = wait_for(std::chrono::seconds(5));
      return mock_error{mock_errc::start_failed,
                        "it " + (status ? describe_wait_status(*status) : "closed its stdout") +
                            " before it printed its address"};
    }
    if (c == '\n') return line;
    line.push_back(c);
  }
}

bool server_child::running() {
  if (pid_ <= 0) return false;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) reaped(status);
  return pid_ > 0;
}

void server_child::signal(int signo) noexcept {
  if (pid_ > 0) ::kill(pid_, signo);
}

std::optional<int> server_child::wait_for(std::chrono::milliseconds limit) {
  if (pid_ <= 0) return status_;
  // A pidfd becomes readable when the process ends (Linux 5.3): the wait needs no polling loop.
  const int pidfd = static_cast<int>(::syscall(SYS_pidfd_open, pid_, 0));
  if (pidfd >= 0) {
    const auto deadline = clock::now() + limit;
    int ready = 0;
    do {
      pollfd p{pidfd, POLLIN, 0};
      ready = ::poll(&p, 1, millis_left(deadline));
    } while (ready < 0 && errno == EINTR);
    ::close(pidfd);
    if (ready == 0) return std::nullopt;
  }
  // Ended (or no pidfd on this kernel: then wait without a limit).
  int status = 0;
  pid_t got = -1;
  while ((got = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
  }
  if (got == pid_) reaped(status);
  return status_;
}

void server_child::reaped(int status) noexcept {
  status_ = status;
  pid_ = -1;
}

}  // namespace idem::kit::detail
