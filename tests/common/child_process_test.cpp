// common/child_process: the tree's one child-process helper (issue 44). /bin/sh stands in for
// the programs its users run; each stream setting, the limits, the usage figures wait4 gives,
// the words for an ending, a program that cannot start, the environment, and the fork path's
// CPU, file limit and user.
#include "common/child_process.hpp"

#include <gtest/gtest.h>
#include <sched.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <sstream>
#include <string>
#include <system_error>

#include "tests/support/temp_dir.hpp"

namespace {

using idem::common::child_exit;
using idem::common::child_output;
using idem::common::child_process;
using idem::common::child_spec;
using namespace std::chrono_literals;

// /bin/sh -c `script`, stdout on a pipe.
child_spec cp_shell(const std::string& script) {
  return {.program = "/bin/sh", .args = {"-c", script}, .stdout_to = child_output::pipe()};
}

// Everything `spec` prints on stdout, and how it ended.
std::pair<std::string, child_exit> cp_run(const child_spec& spec) {
  child_process child{spec};
  EXPECT_TRUE(child.read_to_end(60s));
  return {child.take_stdout(), child.wait()};
}

std::string cp_file_text(const std::string& path) {
  std::ostringstream text;
  text << std::ifstream{path}.rdbuf();
  return text.str();
}

TEST(ChildProcess, ReadsItsStdoutLineByLineThenSeesTheEnd) {
  child_process child{cp_shell("echo 'listening on here'; echo second; printf tail")};
  EXPECT_GT(child.pid(), 0);
  EXPECT_EQ(child.read_line(60s), "listening on here");
  EXPECT_EQ(child.read_line(60s), "second");
  EXPECT_EQ(child.read_line(60s), std::nullopt);  // "tail" has no newline, then the pipe ends
  EXPECT_TRUE(child.stdout_ended());
  EXPECT_EQ(child.take_stdout(), "tail");
  EXPECT_EQ(child.wait().exit_code(), 0);
  EXPECT_EQ(child.pid(), -1);
}

TEST(ChildProcess, StderrMergedIntoStdoutReadsAsOneStreamInOrder) {
  auto spec = cp_shell("echo one; echo two >&2; echo three");
  spec.stderr_to = child_output::into_stdout();
  EXPECT_EQ(cp_run(spec).first, "one\ntwo\nthree\n");
}

TEST(ChildProcess, StdoutAndStderrOnTwoPipesAreReadApart) {
  auto spec = cp_shell("echo out; echo err >&2");
  spec.stderr_to = child_output::pipe();
  child_process child{spec};
  ASSERT_TRUE(child.read_to_end(60s));
  EXPECT_EQ(child.take_stdout(), "out\n");
  EXPECT_EQ(child.take_stderr(), "err\n");
  EXPECT_EQ(child.wait().exit_code(), 0);
}

TEST(ChildProcess, AFileIsAppendedToOverSeveralStartsAndNullSwallows) {
  const idem::kit::temp_dir dir;
  const std::string log = (dir.path() / "child.log").string();
  std::ofstream{log} << "before\n";
  for (const char* word : {"first", "second"}) {
    child_process child{
        {.program = "/bin/sh",
         .args = {"-c", std::string("echo ") + word + "; echo err-" + word + " >&2"},
         .stdout_to = child_output::null(),
         .stderr_to = child_output::append_to(log)}};
    EXPECT_EQ(child.wait().exit_code(), 0);
  }
  EXPECT_EQ(cp_file_text(log), "before\nerr-first\nerr-second\n");
}

TEST(ChildProcess, AtTheLimitItStillRunsUntilStoppedOrKilled) {
  child_process silent{cp_shell("exec sleep 600")};
  EXPECT_EQ(silent.read_line(50ms), std::nullopt);
  EXPECT_FALSE(silent.stdout_ended());  // the limit, not the end
  EXPECT_FALSE(silent.read_to_end(50ms));
  EXPECT_EQ(silent.wait_for(50ms), std::nullopt);
  EXPECT_EQ(silent.poll(), std::nullopt);
  const child_exit stopped = silent.stop(SIGTERM, 60s);
  EXPECT_EQ(stopped.signal(), SIGTERM);
  EXPECT_EQ(silent.poll()->wait_status, stopped.wait_status);  // reaped once, kept

  // One that ignores SIGTERM is SIGKILLed after the grace.
  child_process stubborn{cp_shell("trap '' TERM; echo ready; while :; do :; done")};
  ASSERT_EQ(stubborn.read_line(60s), "ready");
  EXPECT_EQ(stubborn.stop(SIGTERM, 100ms).signal(), SIGKILL);

  pid_t gone = -1;
  {
    child_process dropped{cp_shell("exec sleep 600")};
    gone = dropped.pid();
  }
  EXPECT_NE(::kill(gone, 0), 0) << "the destructor kills and reaps it";
}

TEST(ChildProcess, ItsEndCarriesTheUsageWait4Reports) {
  const auto [out, end] = cp_run(cp_shell("i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"));
  EXPECT_EQ(end.exit_code(), 0);
  EXPECT_GT(end.cpu.count(), 0);
  EXPECT_GT(end.wall.count(), 0);
  EXPECT_GT(end.max_rss_kib, 0);
}

TEST(ChildProcess, AnEndingInWords) {
  EXPECT_EQ(cp_run(cp_shell("exit 3")).second.describe(), "exited with status 3");
  EXPECT_EQ(cp_run(cp_shell("exit 3")).second.exit_code(), 3);
  const child_exit killed = cp_run(cp_shell("kill -9 $$")).second;
  EXPECT_EQ(killed.describe(), "killed by signal 9");
  EXPECT_EQ(killed.exit_code(), -1);
  EXPECT_EQ(killed.signal(), 9);
}

TEST(ChildProcess, AProgramThatCannotStartIsAnErrorNotAChild) {
  for (bool fork_path : {false, true}) {
    const child_spec spec{.program = "/nonexistent/idem-no-such-program",
                          .stdout_to = child_output::pipe(),
                          .die_with_parent = fork_path};
    std::error_code ec;
    std::string what;
    child_process child = child_process::start(spec, ec, what);
    EXPECT_EQ(ec, std::errc::no_such_file_or_directory) << fork_path;
    EXPECT_EQ(what, "cannot run /nonexistent/idem-no-such-program");
    EXPECT_EQ(child.pid(), -1);
    EXPECT_THROW(child_process{spec}, std::system_error);
  }
  std::error_code ec;
  std::string what;
  (void)child_process::start(
      {.program = "/bin/true", .stderr_to = child_output::append_to("/nonexistent/folder/log")}, ec,
      what);
  EXPECT_EQ(ec, std::errc::no_such_file_or_directory);
  EXPECT_EQ(what, "cannot open /nonexistent/folder/log");
}

TEST(ChildProcess, TheEnvironmentIsTheParentsWithChangesOrOnlyWhatIsSet) {
  // env(1) prints the environment it was given (a shell would add PWD, or a PATH of its own).
  const auto env_of = [](child_spec spec) {
    spec.program = "/usr/bin/env";
    spec.stdout_to = child_output::pipe();
    return "\n" + cp_run(spec).first;
  };
  const std::string parents = env_of({});
  ASSERT_NE(parents.find("\nPATH="), std::string::npos) << parents;

  const std::string changed =
      env_of({.set_environment = {{"IDEM_CP_SET", "one"}, {"PATH", "/idem/bin"}}});
  EXPECT_NE(changed.find("\nIDEM_CP_SET=one\n"), std::string::npos) << changed;
  EXPECT_NE(changed.find("\nPATH=/idem/bin\n"), std::string::npos) << changed;
  EXPECT_EQ(changed.find("\nPATH=", changed.find("\nPATH=") + 1), std::string::npos) << changed;

  const std::string unset = env_of({.unset_environment = {"PATH"}});
  EXPECT_EQ(unset.find("\nPATH="), std::string::npos) << unset;
  std::string parents_but_path = parents;
  const auto path_at = parents_but_path.find("\nPATH=");
  parents_but_path.erase(path_at, parents_but_path.find('\n', path_at + 1) - path_at);
  EXPECT_EQ(unset, parents_but_path);

  EXPECT_EQ(env_of({.clear_environment = true, .set_environment = {{"IDEM_CP_SET", "two"}}}),
            "\nIDEM_CP_SET=two\n");
}

TEST(ChildProcess, TheForkPathPinsTheCpuLimitsFilesAndChangesUser) {
  cpu_set_t mine;
  ASSERT_EQ(::sched_getaffinity(0, sizeof mine, &mine), 0);
  int cpu = 0;
  while (!CPU_ISSET(cpu, &mine))
    ++cpu;
  auto pinned = cp_shell("grep Cpus_allowed_list /proc/self/status; ulimit -n");
  pinned.cpu = cpu;
  pinned.open_files = 64;
  EXPECT_EQ(cp_run(pinned).first, "Cpus_allowed_list:\t" + std::to_string(cpu) + "\n64\n");

  auto nobody = cp_shell("id -u");
  nobody.user = idem::common::child_user{.uid = 65534, .gid = 65534};
  std::error_code ec;
  std::string what;
  child_process child = child_process::start(nobody, ec, what);
  if (::geteuid() != 0) {
    EXPECT_EQ(ec, std::errc::operation_not_permitted);
    EXPECT_EQ(what, "cannot run /bin/sh as uid 65534");
    return;
  }
  ASSERT_FALSE(ec) << what;
  EXPECT_EQ(child.read_line(60s), "65534");
  EXPECT_EQ(child.wait().exit_code(), 0);
}

}  // namespace
