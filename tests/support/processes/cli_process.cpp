#include "tests/support/processes/cli_process.hpp"

#include <sys/wait.h>

#include <filesystem>
#include <stdexcept>

namespace idem::kit {
namespace {

constexpr uid_t nobody = 65534;

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
  return common::describe_wait_status(wait_status) + (timed_out ? " (timed out)" : "") +
         "\nstdout: " + out + "\nstderr: " + err;
}

cli_process::cli_process(const std::vector<std::string>& args, const cli_options& options) {
  std::filesystem::path program = options.binary.empty() ? idem_cli_binary() : options.binary;
  if (options.unprivileged && !others_can_run(program)) {
    staged_ = stage_for_others(program);
    program = staged_.path() / program.filename();
  }
  common::child_spec spec{.program = program.string(),
                          .args = args,
                          .stdout_to = common::child_output::pipe(),
                          .stderr_to = common::child_output::pipe(),
                          .unset_environment = {"IDEM_CLI_CRASH_AT"},
                          .set_environment = options.env};
  if (options.unprivileged) spec.user = common::child_user{.uid = nobody, .gid = nobody};
  child_ = common::child_process{spec};
}

cli_result cli_process::result(const common::child_exit& end) {
  return {.wait_status = end.wait_status, .out = child_.take_stdout(), .err = child_.take_stderr()};
}

std::optional<cli_result> cli_process::wait_for(std::chrono::milliseconds limit) {
  if (child_.pid() <= 0) throw std::logic_error("cli_process: already reaped");
  if (!child_.read_to_end(limit)) return std::nullopt;
  return result(child_.wait());
}

cli_result cli_process::kill() {
  if (child_.pid() <= 0) throw std::logic_error("cli_process: already reaped");
  const auto end = child_.kill();
  // A killed child's pipes close at once; the bound only turns a hang into an end.
  child_.read_to_end(std::chrono::seconds(10));
  return result(end);
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
