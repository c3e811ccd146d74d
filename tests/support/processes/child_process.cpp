#include "tests/support/processes/child_process.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <stdexcept>

namespace idem::kit {

finished_process run_mock_server_to_exit(const std::vector<std::string>& args,
                                         std::chrono::milliseconds limit) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  std::string binary = IDEM_MOCK_SERVER_BINARY;
  std::vector<std::string> argv_storage(args);
  std::vector<char*> argv{binary.data()};
  for (auto& a : argv_storage)
    argv.push_back(a.data());
  argv.push_back(nullptr);

  const pid_t pid = ::fork();
  if (pid < 0) throw std::runtime_error("fork failed");
  if (pid == 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(fds[1], STDOUT_FILENO);
    ::dup2(fds[1], STDERR_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);

  finished_process out;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  std::array<char, 4096> buf{};
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      out.timed_out = true;
      ::kill(pid, SIGKILL);
      break;
    }
    pollfd p{fds[0], POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    const auto n = ::read(fds[0], buf.data(), buf.size());
    if (n <= 0) break;  // EOF: the child closed its output (it exited)
    out.output.append(buf.data(), static_cast<std::size_t>(n));
  }
  ::close(fds[0]);
  ::waitpid(pid, &out.wait_status, 0);
  return out;
}

}  // namespace idem::kit
