#include "tests/support/processes/cli_process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <filesystem>
#include <stdexcept>

extern char** environ;

namespace idem::kit {
namespace {

constexpr uid_t nobody = 65534;

std::string name_of(const std::string& assignment) {
  return assignment.substr(0, assignment.find('='));
}

// The test's environment without IDEM_CLI_CRASH_AT and the names `extra` sets, then `extra`.
std::vector<std::string> child_environment(
    const std::vector<std::pair<std::string, std::string>>& extra) {
  std::vector<std::string> env;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const std::string name = name_of(*e);
    bool replaced = name == "IDEM_CLI_CRASH_AT";
    for (const auto& [n, v] : extra)
      replaced = replaced || n == name;
    if (!replaced) env.emplace_back(*e);
  }
  for (const auto& [n, v] : extra)
    env.push_back(n + "=" + v);
  return env;
}

// Can a user who is neither owner nor group (nobody) run `program`: may it enter every folder
// above it and execute the file?
bool others_can_run(const std::filesystem::path& program) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto path = fs::absolute(program, ec);
  if (ec) return false;
  if ((fs::status(path, ec).permissions() & fs::perms::others_exec) == fs::perms::none) {
    return false;
  }
  for (auto dir = path.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if ((fs::status(dir, ec).permissions() & fs::perms::others_exec) == fs::perms::none || ec) {
      return false;
    }
    if (dir == dir.root_path()) break;
  }
  return true;
}

// Copies `program` into a new folder of the temp directory (or /tmp, when nobody cannot enter
// that) which anyone may enter; returns the folder.
common::temp_directory stage_for_others(const std::filesystem::path& program) {
  namespace fs = std::filesystem;
  fs::path base = fs::temp_directory_path();
  if (!others_can_run(base / ".")) base = "/tmp";
  common::temp_directory dir("idem_cli_", base);
  fs::permissions(dir.path(), fs::perms(0755));
  fs::copy_file(program, dir.path() / program.filename());
  fs::permissions(dir.path() / program.filename(), fs::perms(0755));
  return dir;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

}  // namespace

std::string idem_cli_binary() {
  return IDEM_CLI_BINARY;
}

int cli_result::exit_code() const noexcept {
  return WIFEXITED(wait_status) ? WEXITSTATUS(wait_status) : -1;
}

int cli_result::signal() const noexcept {
  return WIFSIGNALED(wait_status) ? WTERMSIG(wait_status) : 0;
}

std::string cli_result::dump() const {
  std::string how = signal() != 0 ? "killed by signal " + std::to_string(signal())
                                  : "exit " + std::to_string(exit_code());
  return how + (timed_out ? " (timed out)" : "") + "\nstdout: " + out + "\nstderr: " + err;
}

cli_process::cli_process(const std::vector<std::string>& args, const cli_options& options) {
  // Everything the child needs is built before fork: only async-signal-safe calls after it.
  std::filesystem::path program = options.binary.empty() ? idem_cli_binary() : options.binary;
  if (options.unprivileged && !others_can_run(program)) {
    staged_ = stage_for_others(program);
    program = staged_.path() / program.filename();
  }
  std::vector<std::string> argv_storage{program.string()};
  argv_storage.insert(argv_storage.end(), args.begin(), args.end());
  std::vector<std::string> env_storage = child_environment(options.env);
  std::vector<char*> argv = pointers_to(argv_storage);
  std::vector<char*> envp = pointers_to(env_storage);

  // O_CLOEXEC: a second child started meanwhile must not hold this one's pipes open.
  int out[2];
  int err[2];
  if (::pipe2(out, O_CLOEXEC) != 0) throw std::runtime_error("pipe failed");
  if (::pipe2(err, O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    throw std::runtime_error("pipe failed");
  }
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error("fork failed");
  if (pid_ == 0) {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd >= 0) ::dup2(null_fd, STDIN_FILENO);
    ::dup2(out[1], STDOUT_FILENO);
    ::dup2(err[1], STDERR_FILENO);
    if (options.unprivileged &&
        (::setgroups(0, nullptr) != 0 || ::setgid(nobody) != 0 || ::setuid(nobody) != 0)) {
      ::_exit(126);
    }
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(out[1]);
  ::close(err[1]);
  out_fd_ = out[0];
  err_fd_ = err[0];
}

cli_process::~cli_process() {
  if (pid_ > 0) kill();
}

bool cli_process::read_until(std::chrono::steady_clock::time_point deadline) {
  std::array<char, 4096> buf{};
  while (out_fd_ >= 0 || err_fd_ >= 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    std::array<pollfd, 2> fds{pollfd{out_fd_, POLLIN, 0}, pollfd{err_fd_, POLLIN, 0}};
    if (::poll(fds.data(), fds.size(), static_cast<int>(left.count())) <= 0) continue;
    for (std::size_t n = 0; n < fds.size(); ++n) {
      if (fds[n].fd < 0 || fds[n].revents == 0) continue;
      int& fd = n == 0 ? out_fd_ : err_fd_;
      std::string& text = n == 0 ? result_.out : result_.err;
      const auto got = ::read(fd, buf.data(), buf.size());
      if (got > 0) {
        text.append(buf.data(), static_cast<std::size_t>(got));
      } else {
        ::close(fd);  // EOF: the child is gone (or closed it)
        fd = -1;
      }
    }
  }
  return true;
}

cli_result cli_process::reap() {
  ::waitpid(pid_, &result_.wait_status, 0);
  pid_ = -1;
  return std::move(result_);
}

std::optional<cli_result> cli_process::wait_for(std::chrono::milliseconds limit) {
  if (pid_ <= 0) throw std::logic_error("cli_process: already reaped");
  if (!read_until(std::chrono::steady_clock::now() + limit)) return std::nullopt;
  return reap();
}

cli_result cli_process::kill() {
  if (pid_ <= 0) throw std::logic_error("cli_process: already reaped");
  ::kill(pid_, SIGKILL);
  // A killed child's pipes close at once; the bound only turns a hang into an end.
  read_until(std::chrono::steady_clock::now() + std::chrono::seconds(10));
  for (int* fd : {&out_fd_, &err_fd_}) {
    if (*fd >= 0) ::close(*fd);
    *fd = -1;
  }
  return reap();
}

cli_result run_cli_to_exit(const std::vector<std::string>& args, const cli_options& options,
                           std::chrono::milliseconds limit) {
  cli_process child(args, options);
  if (auto done = child.wait_for(limit)) return std::move(*done);
  cli_result killed = child.kill();
  killed.timed_out = true;
  return killed;
}

}  // namespace idem::kit
