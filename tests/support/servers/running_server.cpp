#include "tests/support/servers/running_server.hpp"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/post.hpp>
#include <chrono>
#include <future>
#include <stdexcept>

#include "mock_server/server.hpp"

namespace idem::kit {

mock::server_options test_server_options() {
  mock::server_options o;
  o.host = "127.0.0.1";
  o.port = 0;
  o.db_path = ":memory:";
  o.admin_token = admin_token;
  // The completer runs only when a test asks (POST /_mock/complete): on a timer it would race
  // with the retries that tests send to take an expired lease over themselves.
  o.completer_interval = std::chrono::hours(24);
  return o;
}

running_server::running_server(mock::server_options options)
    : server_(std::make_unique<mock::server>(io_, std::move(options))) {
  server_->start();
  port_ = server_->local_endpoint().port();
  thread_ = std::thread([this] { io_.run(); });
}

running_server::~running_server() {
  boost::asio::post(io_, [this] { server_->shutdown([this] { io_.stop(); }); });
  thread_.join();
  server_.reset();
}

namespace {

// Reads the first line of the child's stdout, waiting at most `timeout`.
std::string read_address_line(int fd, std::chrono::milliseconds timeout) {
  std::string line;
  auto deadline = std::chrono::steady_clock::now() + timeout;
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) throw std::runtime_error("mock server did not print its address");
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    char c = 0;
    auto n = ::read(fd, &c, 1);
    if (n <= 0) throw std::runtime_error("mock server exited before printing its address: " + line);
    if (c == '\n') return line;
    line.push_back(c);
  }
}

}  // namespace

server_process::server_process(std::vector<std::string> args, std::string stderr_path,
                               unsigned open_files) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error("pipe failed");
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    if (!stderr_path.empty()) {
      const int err = ::open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
      if (err < 0 || ::dup2(err, STDERR_FILENO) < 0) ::_exit(127);
    }
    if (open_files > 0) {
      const rlimit limit{open_files, open_files};
      if (::setrlimit(RLIMIT_NOFILE, &limit) != 0) ::_exit(127);
    }
    ::dup2(fds[1], STDOUT_FILENO);
    ::close(fds[0]);
    ::close(fds[1]);
    std::vector<char*> argv;
    std::string binary = IDEM_MOCK_SERVER_BINARY;
    argv.push_back(binary.data());
    for (auto& a : args)
      argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv(binary.c_str(), argv.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  stdout_fd_ = fds[0];
  auto line = read_address_line(stdout_fd_, std::chrono::seconds(30));
  auto colon = line.rfind(':');
  if (!line.starts_with("listening on http://") || colon == std::string::npos) {
    throw std::runtime_error("unexpected first line: " + line);
  }
  port_ = static_cast<std::uint16_t>(std::stoi(line.substr(colon + 1)));
}

int server_process::stop(int signo) {
  if (pid_ <= 0) return 0;
  ::kill(pid_, signo);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
  return status;
}

std::string server_process::rest_of_stdout() {
  std::string out;
  if (pid_ > 0 || stdout_fd_ < 0) return out;  // still running: a read could block for ever
  char buf[4096];
  for (;;) {
    const auto n = ::read(stdout_fd_, buf, sizeof buf);
    if (n <= 0) break;
    out.append(buf, static_cast<std::size_t>(n));
  }
  return out;
}

server_process::~server_process() {
  stop(SIGKILL);
  if (stdout_fd_ >= 0) ::close(stdout_fd_);
}

}  // namespace idem::kit
