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

namespace idem::common::detail {
namespace {

// A descriptor closed on every path.
class owned_fd {
 public:
  owned_fd() = default;
  explicit owned_fd(int fd) : fd_(fd) {}
  ~owned_fd() { reset(); }
  owned_fd(const owned_fd&) = delete;
  owned_fd& operator=(const owned_fd&) = delete;
  owned_fd& operator=(owned_fd&& other) noexcept {
    reset();
    fd_ = std::exchange(other.fd_, -1);
    return *this;
  }
  [[nodiscard]] int get() const noexcept { return fd_; }
  int release() noexcept { return std::exchange(fd_, -1); }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_ = -1;
};

// Why start failed: the step and errno.
struct failure {
  std::string what;
  int err = 0;
};

// The child's ends of its three streams (-1: the parent's), and the parent's ends of the pipes.
// Every descriptor is close-on-exec: no other child started meanwhile inherits one (the dup2
// onto 0, 1, 2 in the child clears the flag on the child's own copies).
struct streams {
  owned_fd in, out, err;
  owned_fd out_pipe, err_pipe;
  bool merge = false;
};

std::optional<failure> open_output(const child_output& o, owned_fd& child_end,
                                   owned_fd& parent_end) {
  switch (o.to) {
    case child_output::kind::inherit:
    case child_output::kind::into_stdout:
      return std::nullopt;
    case child_output::kind::null:
      child_end = owned_fd{::open("/dev/null", O_WRONLY | O_CLOEXEC)};
      if (child_end.get() < 0) return failure{"cannot open /dev/null", errno};
      return std::nullopt;
    case child_output::kind::append:
      child_end = owned_fd{::open(o.path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600)};
      if (child_end.get() < 0) return failure{"cannot open " + o.path, errno};
      return std::nullopt;
    case child_output::kind::pipe: {
      int fds[2];
      if (::pipe2(fds, O_CLOEXEC) != 0) return failure{"cannot make a pipe", errno};
      parent_end = owned_fd{fds[0]};
      child_end = owned_fd{fds[1]};
      return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<failure> open_streams(const child_spec& spec, streams& s) {
  if (spec.stdout_to.to == child_output::kind::into_stdout) {
    return failure{"stdout cannot go into stdout", EINVAL};
  }
  if (spec.stdin_null) {
    s.in = owned_fd{::open("/dev/null", O_RDONLY | O_CLOEXEC)};
    if (s.in.get() < 0) return failure{"cannot open /dev/null", errno};
  }
  if (auto f = open_output(spec.stdout_to, s.out, s.out_pipe)) return f;
  s.merge = spec.stderr_to.to == child_output::kind::into_stdout;
  return open_output(spec.stderr_to, s.err, s.err_pipe);
}

std::string name_of(const char* assignment) {
  const std::string_view a{assignment};
  return std::string{a.substr(0, a.find('='))};
}

std::vector<std::string> environment_of(const child_spec& spec) {
  std::vector<std::string> env;
  if (!spec.clear_environment) {
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      const std::string name = name_of(*e);
      const bool dropped =
          std::ranges::find(spec.unset_environment, name) != spec.unset_environment.end() ||
          std::ranges::any_of(spec.set_environment,
                              [&](const auto& nv) { return nv.first == name; });
      if (!dropped) env.emplace_back(*e);
    }
  }
  for (const auto& [name, value] : spec.set_environment)
    env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> pointers_to(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings)
    out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// What the forked child reports on its close-on-exec pipe when a step fails: the step and
// errno. Nothing arrives when exec succeeds (the pipe closes).
enum class child_step : int { redirect, limit_files, pin_cpu, change_user, exec };
struct child_report {
  child_step step;
  int err;
};

std::string step_words(child_step step, const child_spec& spec) {
  switch (step) {
    case child_step::redirect:
      return "cannot redirect the streams of " + spec.program;
    case child_step::limit_files:
      return "cannot limit the open files of " + spec.program;
    case child_step::pin_cpu:
      return "cannot pin " + spec.program + " to CPU " + std::to_string(spec.cpu.value_or(-1));
    case child_step::change_user:
      return "cannot run " + spec.program + " as uid " +
             std::to_string(spec.user ? spec.user->uid : 0);
    case child_step::exec:
      break;
  }
  return "cannot run " + spec.program;
}

// Makes `fd` the child's `target` (dup2 clears close-on-exec; an fd already there keeps it, so
// clear it then). Async-signal-safe.
bool redirect(int fd, int target) {
  if (fd < 0) return true;
  if (fd == target) return ::fcntl(fd, F_SETFD, 0) == 0;
  return ::dup2(fd, target) == target;
}

// fork + exec, for what posix_spawn cannot do. Everything is built before fork: after it the
// child only makes async-signal-safe calls.
std::optional<failure> fork_exec(const child_spec& spec, const streams& s, char* const* argv,
                                 char* const* envp, pid_t& pid) {
  if (spec.cpu && (*spec.cpu < 0 || *spec.cpu >= CPU_SETSIZE)) {
    return failure{step_words(child_step::pin_cpu, spec), EINVAL};
  }
  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) return failure{"cannot make a pipe", errno};
  cpu_set_t cpus;
  CPU_ZERO(&cpus);
  if (spec.cpu) CPU_SET(*spec.cpu, &cpus);
  const rlimit files{spec.open_files.value_or(0), spec.open_files.value_or(0)};
  pid = ::fork();
  if (pid < 0) {
    const int err = errno;
    ::close(report[0]);
    ::close(report[1]);
    return failure{"cannot fork for " + spec.program, err};
  }
  if (pid == 0) {
    const auto fail = [&](child_step step) {
      const child_report r{step, errno};
      (void)!::write(report[1], &r, sizeof r);
      ::_exit(127);
    };
    // A parent stopped by Ctrl-C (or killed) takes its children with it.
    if (spec.die_with_parent) ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (!redirect(s.in.get(), STDIN_FILENO) || !redirect(s.out.get(), STDOUT_FILENO) ||
        !redirect(s.err.get(), STDERR_FILENO) ||
        (s.merge && ::dup2(STDOUT_FILENO, STDERR_FILENO) != STDERR_FILENO)) {
      fail(child_step::redirect);
    }
    if (spec.open_files && ::setrlimit(RLIMIT_NOFILE, &files) != 0) fail(child_step::limit_files);
    if (spec.cpu && ::sched_setaffinity(0, sizeof cpus, &cpus) != 0) fail(child_step::pin_cpu);
    if (spec.user && (::setgroups(0, nullptr) != 0 || ::setgid(spec.user->gid) != 0 ||
                      ::setuid(spec.user->uid) != 0)) {
      fail(child_step::change_user);
    }
    ::execve(argv[0], argv, envp);
    fail(child_step::exec);
  }
  ::close(report[1]);
  child_report r{};
  ssize_t got = 0;
  while ((got = ::read(report[0], &r, sizeof r)) < 0 && errno == EINTR) {
  }
  ::close(report[0]);
  if (got != static_cast<ssize_t>(sizeof r)) return std::nullopt;  // exec closed the pipe
  while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
  }
  pid = -1;
  return failure{step_words(r.step, spec), r.err};
}

// posix_spawn: no copy of the parent's memory (vfork-like), and exec's failure is its result.
std::optional<failure> spawn(const child_spec& spec, const streams& s, char* const* argv,
                             char* const* envp, pid_t& pid) {
  posix_spawn_file_actions_t actions;
  if (int err = ::posix_spawn_file_actions_init(&actions); err != 0) {
    return failure{"cannot run " + spec.program, err};
  }
  int err = 0;
  const std::array<std::pair<int, int>, 3> moves{
      {{s.in.get(), STDIN_FILENO}, {s.out.get(), STDOUT_FILENO}, {s.err.get(), STDERR_FILENO}}};
  for (const auto& [fd, target] : moves) {
    if (err == 0 && fd >= 0) err = ::posix_spawn_file_actions_adddup2(&actions, fd, target);
  }
  if (err == 0 && s.merge) {
    err = ::posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  }
  if (err == 0) err = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv, envp);
  ::posix_spawn_file_actions_destroy(&actions);
  if (err != 0) {
    pid = -1;
    return failure{"cannot run " + spec.program, err};
  }
  return std::nullopt;
}

}  // namespace

launched launch(const child_spec& spec, std::error_code& ec, std::string& what) {
  ec.clear();
  what.clear();
  streams s;
  std::optional<failure> failed = open_streams(spec, s);
  std::vector<std::string> arg_strings{spec.program};
  arg_strings.insert(arg_strings.end(), spec.args.begin(), spec.args.end());
  std::vector<std::string> env_strings = environment_of(spec);
  const std::vector<char*> argv = pointers_to(arg_strings);
  const std::vector<char*> envp = pointers_to(env_strings);
  launched out;
  if (!failed) {
    const bool needs_fork = spec.cpu || spec.user || spec.open_files || spec.die_with_parent;
    failed = needs_fork ? fork_exec(spec, s, argv.data(), envp.data(), out.pid)
                        : spawn(spec, s, argv.data(), envp.data(), out.pid);
  }
  if (failed) {
    ec.assign(failed->err, std::generic_category());
    what = std::move(failed->what);
    return {};
  }
  out.stdout_pipe = s.out_pipe.release();
  out.stderr_pipe = s.err_pipe.release();
  return out;
}

}  // namespace idem::common::detail
