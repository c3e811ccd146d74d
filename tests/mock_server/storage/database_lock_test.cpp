// One server per database file: a second server on the same --db used to start, expire the first
// one's live leases (they looked abandoned) and execute requests beside it.
#include "mock_server/storage/database_lock.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

#include "mock_server/state/server_state.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/processes/child_process.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_db_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace idem::kit {
namespace {

std::vector<std::string> args_for(const temp_db_file& db) {
  return {"--listen", "127.0.0.1:0", "--db", db.path(), "--admin-token", admin_token};
}

TEST(DatabaseLock, SecondServerOnTheSameDatabaseRefusesToStartAndTheFirstKeepsItsLeases) {
  temp_db_file db;
  server_process first{args_for(db)};
  api_client api{first.port()};
  api.set_faults(only(on_create("crash_during_processing", {{"times", 1}})));
  auto crashed = api.post("/v1/orders", "k-1", order_body("m-1"));
  EXPECT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();

  auto second = run_mock_server_to_exit(args_for(db));
  ASSERT_FALSE(second.timed_out) << second.output;
  EXPECT_TRUE(WIFEXITED(second.wait_status) && WEXITSTATUS(second.wait_status) == 1)
      << second.wait_status << '\n'
      << second.output;
  EXPECT_NE(second.output.find("in use by another idem-mock-server (pid " +
                               std::to_string(first.pid()) + ")"),
            std::string::npos)
      << second.output;

  // The crashed executor's lease still runs in the first server: nobody expired it.
  auto retry = api.post("/v1/orders", "k-1", order_body("m-1"));
  EXPECT_TRUE(is_problem(retry, 409, "idempotency-request-in-progress"));
}

TEST(DatabaseLock, ReleasedWhenTheServerStops) {
  temp_db_file db;
  { server_process first{args_for(db)}; }
  server_process second{args_for(db)};
  EXPECT_GT(second.port(), 0);
}

TEST(DatabaseLock, HeldWithinOneProcessToo) {
  temp_db_file db;
  mock::database_lock first{db.path()};
  EXPECT_THROW(mock::database_lock{db.path()}, std::runtime_error);
  auto options = test_server_options();
  options.db_path = db.path();
  EXPECT_THROW(mock::server_state{options}, std::runtime_error);
}

TEST(DatabaseLock, InMemoryDatabasesNeedNoLock) {
  EXPECT_NO_THROW({
    mock::server_state a{test_server_options()};
    mock::server_state b{test_server_options()};
  });
}

// The lock went by the path string: a symlink to the database started a second server on it.
TEST(DatabaseLock, ASymlinkToTheDatabaseNamesTheSameLock) {
  temp_dir dir;
  const auto real = dir.file("real.db");
  const auto link = dir.file("link.db");
  mock::database_lock first{real};
  { mock::database create{real}; }
  std::filesystem::create_symlink(real, link);
  EXPECT_THROW(mock::database_lock{link}, std::runtime_error);
  // A relative spelling of the same file too.
  const auto cwd = std::filesystem::current_path();
  std::filesystem::current_path(dir.path());
  std::filesystem::create_directory(dir.file("sub"));
  EXPECT_THROW(mock::database_lock{"./sub/../real.db"}, std::runtime_error);
  std::filesystem::current_path(cwd);
}

std::string lock_file_contents(const std::string& path) {
  std::ifstream in{path, std::ios::binary};
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The lock file was opened through a symlink and truncated: it overwrote another file with the
// pid of the server.
TEST(DatabaseLock, ALockFileThatIsASymlinkIsRefusedAndItsTargetLeftAlone) {
  temp_dir dir;
  const auto victim = dir.file("precious.txt");
  std::ofstream{victim} << "keep me\n";
  std::filesystem::create_symlink(victim, dir.file("app.db.lock"));
  try {
    mock::database_lock lock{dir.file("app.db")};
    ADD_FAILURE() << "a symlinked lock file was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string{e.what()}.find("app.db.lock"), std::string::npos) << e.what();
  }
  EXPECT_EQ(lock_file_contents(victim), "keep me\n");
}

// A second server that finds the lock held must not touch the holder's pid in the file.
TEST(DatabaseLock, ARefusedServerLeavesTheHoldersPidInPlace) {
  temp_dir dir;
  const auto db = dir.file("app.db");
  mock::database_lock first{db};
  const auto before = lock_file_contents(db + ".lock");
  ASSERT_EQ(before, std::to_string(::getpid()) + "\n");
  EXPECT_THROW(mock::database_lock{db}, std::runtime_error);
  EXPECT_EQ(lock_file_contents(db + ".lock"), before);
}

}  // namespace
}  // namespace idem::kit
