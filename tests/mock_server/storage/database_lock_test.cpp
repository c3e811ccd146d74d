// One server per database file: a second server on the same --db used to start, expire the first
// one's live leases (they looked abandoned) and execute requests beside it.
#include "mock_server/storage/database_lock.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <stdexcept>
#include <string>

#include "mock_server/state/server_state.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/processes/child_process.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_db_file.hpp"

namespace idem::testing {
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

}  // namespace
}  // namespace idem::testing
