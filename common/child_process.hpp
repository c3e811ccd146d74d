#pragma once
// The one child-process helper of the tree: a program started with each of its streams where
// its owner wants it, read, signalled and reaped, with what it cost. The test kit runs the mock
// server with it, the tests idem-cli, the server and Node apps, idem-soak its client and server,
// the perf harness what it measures. Nothing here sleeps: reads and waits block in poll() on a
// pipe or on a pidfd, with a limit.

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

namespace idem::common {

/// Where one output stream of the child goes.
struct child_output {
  enum class kind { inherit, null, append, pipe, into_stdout };
  kind to = kind::inherit;
  std::string path{};  ///< kind::append: the file, created (mode 0600) when missing

  /// The parent's stream.
  [[nodiscard]] static child_output inherit() { return {}; }
  /// /dev/null.
  [[nodiscard]] static child_output null() { return {kind::null}; }
  /// Appended to `file` (a log that outlives one start).
  [[nodiscard]] static child_output append_to(std::string file) {
    return {kind::append, std::move(file)};
  }
  /// A pipe the parent reads (read_line, read_to_end).
  [[nodiscard]] static child_output pipe() { return {kind::pipe}; }
  /// For stderr only: wherever stdout goes (on a pipe, the two read as one, as written).
  [[nodiscard]] static child_output into_stdout() { return {kind::into_stdout}; }
};

/// The user a child runs as: supplementary groups dropped, then this group and user.
struct child_user {
  uid_t uid = 0;
  gid_t gid = 0;
};

/// What to run and how. `cpu`, `user`, `open_files` and `die_with_parent` need fork() (the
/// child changes itself before exec); without them the child is started with posix_spawn.
struct child_spec {
  std::string program{};                         ///< a path: no search of PATH
  std::vector<std::string> args{};               ///< after argv[0], which is `program`
  bool stdin_null = true;                        ///< false: the parent's stdin
  child_output stdout_to{};                      ///< inherit, null, append or pipe
  child_output stderr_to{};                      ///< the same, or into_stdout
  bool clear_environment = false;                ///< true: only `set_environment`
  std::vector<std::string> unset_environment{};  ///< names of the parent's left out
  /// Added to the environment, replacing a variable of the same name.
  std::vector<std::pair<std::string, std::string>> set_environment{};
  std::optional<int> cpu{};              ///< run on this CPU alone
  std::optional<child_user> user{};      ///< run as this user (needs the privilege to)
  std::optional<unsigned> open_files{};  ///< RLIMIT_NOFILE, soft and hard
  bool die_with_parent = false;          ///< SIGKILLed when the parent ends (PR_SET_PDEATHSIG)
};

/// How a child ended and what it cost, as wait4 reports them.
struct child_exit {
  int wait_status = 0;                   ///< as waitpid reports it
  std::chrono::duration<double> wall{};  ///< from its start to its reaping
  std::chrono::duration<double> cpu{};   ///< user + system time
  long max_rss_kib = 0;                  ///< peak resident memory (ru_maxrss)
  /// What it sent to storage: ru_oublock (the kernel counts 512-byte blocks of writes it
  /// caused, data and fsynced metadata alike) times 512.
  std::uint64_t bytes_written = 0;

  /// Its exit status, or -1 when a signal ended it.
  [[nodiscard]] int exit_code() const noexcept;
  /// The signal that ended it, or 0 when it exited.
  [[nodiscard]] int signal() const noexcept;
  /// describe_wait_status(wait_status).
  [[nodiscard]] std::string describe() const;
};

/// "exited with status 3", "killed by signal 9" (else "ended with wait status N").
[[nodiscard]] std::string describe_wait_status(int status);

/// One running (or reaped) child. Movable, not copyable; an empty or moved-from one owns
/// nothing. The destructor SIGKILLs and reaps a child that still runs. Not thread-safe.
///
/// A child writing on a pipe blocks when the pipe is full: read it (read_line, read_to_end)
/// before waiting for a child that writes more than a few kilobytes.
class child_process {
 public:
  /// Starts it; on failure sets `ec` and `what` (the step: "cannot run /bin/x", "cannot open
  /// LOG", ...) and returns an empty one. A program that cannot be executed is such a failure,
  /// not a child that exits 127.
  [[nodiscard]] static child_process start(const child_spec& spec, std::error_code& ec,
                                           std::string& what);
  /// The same; throws std::system_error ("<what>: <reason>").
  explicit child_process(const child_spec& spec);

  child_process() = default;
  ~child_process();
  child_process(child_process&& other) noexcept;
  child_process& operator=(child_process&& other) noexcept;
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  /// -1 when empty or reaped.
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

  /// The next line of its stdout pipe without the newline, waiting at most `limit`; nullopt
  /// at the limit or at the end of the pipe (stdout_ended() tells which).
  [[nodiscard]] std::optional<std::string> read_line(std::chrono::milliseconds limit);
  /// Whether its stdout pipe reached its end (or stdout is not a pipe).
  [[nodiscard]] bool stdout_ended() const noexcept { return out_.fd < 0; }
  /// Reads its stdout and stderr pipes until both end, at most `limit`; false at the limit.
  bool read_to_end(std::chrono::milliseconds limit);
  /// What was read from the stdout pipe and not returned as a line yet; taken.
  [[nodiscard]] std::string take_stdout() { return std::exchange(out_.text, {}); }
  /// What was read from the stderr pipe; taken.
  [[nodiscard]] std::string take_stderr() { return std::exchange(err_.text, {}); }

  /// How it ended if it has (reaping it then); never blocks.
  [[nodiscard]] std::optional<child_exit> poll();
  /// Waits for it to end. Throws std::logic_error on an empty one.
  child_exit wait();
  /// Waits for it to end, at most `limit`; nullopt when it still runs then.
  [[nodiscard]] std::optional<child_exit> wait_for(std::chrono::milliseconds limit);
  /// Sends `signo` if it still runs (never to a reaped pid).
  void signal(int signo) noexcept;
  /// Sends `signo` and waits at most `grace` for it to end, then SIGKILLs it; how it ended.
  child_exit stop(int signo, std::chrono::milliseconds grace);
  /// SIGKILL and reap; how it ended.
  child_exit kill();

 private:
  struct stream {
    int fd = -1;  ///< the pipe's read end; -1: not a pipe, or ended
    std::string text;
  };

  bool fill(stream& s, std::chrono::steady_clock::time_point deadline);
  bool reap(int options);
  void release() noexcept;

  pid_t pid_ = -1;
  int pidfd_ = -1;  ///< readable when the child ends (-1: no pidfd on this kernel)
  stream out_;
  stream err_;
  std::chrono::steady_clock::time_point started_{};
  std::optional<child_exit> exit_;
};

}  // namespace idem::common
