#include "tests/support/processes/node_app.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace idem::kit {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;

std::optional<fs::path> find_on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  std::stringstream dirs{path ? path : ""};
  for (std::string dir; std::getline(dirs, dir, ':');) {
    if (dir.empty()) continue;
    const auto candidate = fs::path{dir} / program;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
  }
  return std::nullopt;
}

// The first line the child prints on stdout, waiting at most `limit`.
std::string read_first_line(int fd, std::chrono::milliseconds limit) {
  std::string line;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (true) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw std::runtime_error("the app did not print its address: " + line);
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char c = 0;
    if (::read(fd, &c, 1) <= 0) {
      throw std::runtime_error("the app exited before printing its address: " + line);
    }
    if (c == '\n') return line;
    line.push_back(c);
  }
}

}  // namespace

std::optional<std::string> interop_prerequisite_missing(const interop_backend& b) {
  if (!find_on_path("node")) return "interop: node is not on PATH: run scripts/setup.sh";
  const fs::path modules = fs::path{IDEM_INTEROP_DIR} / "node_modules";
  if (!fs::is_directory(modules)) {
    return "interop: tests/interop/node_modules missing: run scripts/setup.sh with npm registry "
           "access";
  }
  for (const auto& p : b.packages) {
    if (!fs::exists(modules / p / "package.json")) {
      return "interop: npm package " + p + " missing in tests/interop/node_modules: run " +
             "scripts/setup.sh with npm registry access";
    }
  }
  return std::nullopt;
}

node_app::node_app(const interop_backend& b, const fs::path& log, const std::string& handler_ms) {
  const auto node = find_on_path("node").value();
  const auto script = fs::path{IDEM_INTEROP_DIR} / b.app_dir / "server.js";
  // Everything the child needs is made before fork: it only calls async-signal-safe functions.
  std::vector<std::string> args{node.string(), script.string(), "--handler-ms", handler_ms};
  std::vector<char*> argv;
  for (auto& a : args)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    const int log_fd = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    if (log_fd >= 0) ::dup2(log_fd, STDERR_FILENO);
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    ::execv(node.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  stdout_fd_ = fds[0];
  std::string line;
  try {
    line = read_first_line(stdout_fd_, 30s);
  } catch (const std::runtime_error& e) {
    stop(SIGKILL);
    throw std::runtime_error(std::string{e.what()} + " (its stderr: " + log.string() + ")");
  }
  const auto colon = line.rfind(':');
  if (!line.starts_with("listening on http://") || colon == std::string::npos) {
    stop(SIGKILL);
    throw std::runtime_error("unexpected first line: " + line);
  }
  port_ = static_cast<std::uint16_t>(std::stoi(line.substr(colon + 1)));
}

node_app::~node_app() {
  stop(SIGTERM);
}

void node_app::stop(int signo) {
  if (pid_ > 0) {
    ::kill(pid_, signo);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
  stdout_fd_ = -1;
}

}  // namespace idem::kit
