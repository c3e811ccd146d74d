#include "idem_soak/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <stdexcept>

namespace idem::soak {
namespace {

int open_output(const std::string& path) {
  return path.empty() ? ::open("/dev/null", O_WRONLY | O_CLOEXEC)
                      : ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
}

}  // namespace

child_process::child_process(const child_spec& spec) {
  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::vector<std::string> argv_storage{spec.program};
  argv_storage.insert(argv_storage.end(), spec.args.begin(), spec.args.end());
  std::vector<char*> argv;
  for (auto& a : argv_storage)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  const int in_fd = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  const int err_fd = open_output(spec.stderr_path);
  int pipe_fds[2] = {-1, -1};
  int out_fd = -1;
  if (spec.stdout_pipe) {
    if (::pipe2(pipe_fds, O_CLOEXEC) == 0) out_fd = pipe_fds[1];
  } else {
    out_fd = open_output(spec.stdout_path);
  }
  auto close_all = [&] {
    for (int fd : {in_fd, err_fd, out_fd, pipe_fds[0]})
      if (fd >= 0) ::close(fd);
  };
  if (in_fd < 0 || err_fd < 0 || out_fd < 0) {
    close_all();
    throw std::runtime_error("cannot set up the output of " + spec.program);
  }
  pid_ = ::fork();
  if (pid_ < 0) {
    close_all();
    throw std::runtime_error("fork failed for " + spec.program);
  }
  if (pid_ == 0) {
    // A soak stopped by Ctrl-C (or killed) takes its server and client with it.
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    ::dup2(in_fd, STDIN_FILENO);
    ::dup2(out_fd, STDOUT_FILENO);
    ::dup2(err_fd, STDERR_FILENO);
    ::execv(argv[0], argv.data());  // the soak's environment
    ::_exit(127);
  }
  out_fd_ = pipe_fds[0];
  pipe_fds[0] = -1;
  close_all();
}

child_process::~child_process() {
  if (!status_) stop(SIGKILL);
  if (out_fd_ >= 0) ::close(out_fd_);
}

std::optional<int> child_process::poll() {
  if (status_) return status_;
  int status = 0;
  if (::waitpid(pid_, &status, WNOHANG) == pid_) status_ = status;
  return status_;
}

int child_process::wait() {
  if (status_) return *status_;
  int status = 0;
  while (::waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
  }
  status_ = status;
  return status;
}

int child_process::stop(int signo) {
  if (!poll()) ::kill(pid_, signo);
  return wait();
}

std::optional<std::string> child_process::read_line(std::chrono::milliseconds limit) {
  if (out_fd_ < 0) return std::nullopt;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::string line;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return std::nullopt;
    pollfd p{out_fd_, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char c = 0;
    if (::read(out_fd_, &c, 1) <= 0) return std::nullopt;
    if (c == '\n') return line;
    line.push_back(c);
  }
}

std::string describe_wait_status(int status) {
  if (WIFEXITED(status)) return "exit " + std::to_string(WEXITSTATUS(status));
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "status " + std::to_string(status);
}

}  // namespace idem::soak
