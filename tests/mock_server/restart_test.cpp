// The real idem-mock-server binary as a child process (contract section 7): what it acknowledged
// survives `kill -9` and a restart on the same --db, records its crashed executors left
// PROCESSING are taken over at once after a restart, SIGTERM and SIGINT stop it gracefully, and a
// bad command line is a usage error.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <future>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/processes/child_process.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_db_file.hpp"

namespace idem::kit {
namespace {

bool exited_with(int wait_status, int code) {
  return WIFEXITED(wait_status) && WEXITSTATUS(wait_status) == code;
}

class Restart : public ::testing::Test {
 protected:
  temp_db_file db_;  // declared first: the server is gone before its files are removed
  std::optional<server_process> server_;

  std::vector<std::string> args() const {
    return {"--listen",      "127.0.0.1:0", "--db",    db_.path(),
            "--admin-token", admin_token,   "--lease", "30s"};
  }
  api_client start() {
    server_.emplace(args());
    return api_client{server_->port()};
  }
  // kill -9, then a new process on the same database.
  api_client crash_and_restart() {
    server_->stop(SIGKILL);
    server_.reset();
    return start();
  }
};

TEST_F(Restart, AcknowledgedOrderIsReplayedAfterKill9AndRestart) {
  auto api = start();
  auto first = api.post(orders, "k-1", order_body("m-1"));
  ASSERT_EQ(first.res.status, 201) << first.res.body;

  auto after = crash_and_restart();
  auto replay = after.post(orders, "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(replay, 201));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(replay.res.body, first.res.body);
  EXPECT_EQ(replay.res.header("Location"), first.res.header("Location"));
  EXPECT_EQ(stat(after, "orders"), 1);
}

TEST_F(Restart, StatsSurviveKill9AndRestart) {
  auto api = start();
  api.create_order("m-1", "k-1");
  ASSERT_EQ(api.post(orders, "k-1", order_body("m-1")).res.status, 201);      // a replay
  ASSERT_EQ(api.post(orders, "k-2", order_body("m-1")).res.status, 409);      // a conflict
  ASSERT_EQ(api.post(orders, "k-1", order_body("m-other")).res.status, 422);  // a mismatch
  auto before = api.stats();

  auto after = crash_and_restart();
  auto stats = after.stats();
  for (const char* name :
       {"requests", "orders", "replays", "key_mismatches", "business_id_conflicts",
        "idempotency_records", "max_keys_per_business_id"}) {
    EXPECT_EQ(stats.value(name, -1), before.value(name, -2)) << name;
  }
  EXPECT_EQ(stats.value("requests", 0), 4);
  EXPECT_EQ(stats.value("replays", 0), 1);
}

TEST_F(Restart, ClockOffsetSurvivesRestart) {
  auto api = start();
  auto moved = api.admin("POST", "/_mock/clock", {{"advance_s", 3600}});
  ASSERT_EQ(moved.res.status, 200) << moved.res.body;
  ASSERT_EQ(moved.res.json().at("offset_s"), 3600);

  auto after = crash_and_restart();
  auto now = after.admin("POST", "/_mock/clock", {{"advance_s", 0}});
  ASSERT_EQ(now.res.status, 200) << now.res.body;
  EXPECT_EQ(now.res.json().at("offset_s"), 3600);
}

TEST_F(Restart, RecordLeftProcessingByACrashIsTakenOverAtOnceAfterRestart) {
  auto api = start();
  auto order_id = api.create_order("m-1", "k-create");
  api.set_faults(only(on_pay("crash_during_processing", {{"times", 1}})));
  const auto target = orders + "/" + order_id + "/payments";
  auto crashed = api.post(target, "k-pay", payment_body());
  EXPECT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();
  ASSERT_TRUE(is_problem(api.post(target, "k-pay", payment_body()), 409,
                         "idempotency-request-in-progress"));  // the lease still runs

  auto after = crash_and_restart();  // the same wall clock: the 30 s lease has not run out
  auto retry = after.post(target, "k-pay", payment_body());
  EXPECT_TRUE(has_status(retry, 201));
  EXPECT_EQ(stat(after, "provider_charges"), 1);
  EXPECT_EQ(stat(after, "payments"), 1);
  EXPECT_EQ(stat(after, "orders_with_multiple_charges"), 0);
}

TEST_F(Restart, SigtermStopsTheServerWithStatusZero) {
  auto api = start();
  ASSERT_EQ(api.raw().send("GET", "/healthz").res.status, 200);
  EXPECT_TRUE(exited_with(server_->stop(SIGTERM), 0));
}

TEST_F(Restart, SigintStopsTheServerWithStatusZero) {
  auto api = start();
  ASSERT_EQ(api.raw().send("GET", "/healthz").res.status, 200);
  EXPECT_TRUE(exited_with(server_->stop(SIGINT), 0));
}

TEST_F(Restart, InFlightRequestGetsItsResponseWhenSigtermArrives) {
  auto api = start();
  api.set_faults(only(on_create("delay", {{"delay_ms", 2000}, {"times", 1}})));
  auto in_flight = std::async(std::launch::async, [port = server_->port()] {
    api_client own{port};
    return own.post(orders, "k-1", order_body("m-1"));
  });
  // The delay fires once the key is claimed: the request is then in flight.
  ASSERT_TRUE(eventually([&] { return stat(api, "faults_injected") == 1; }));

  EXPECT_TRUE(exited_with(server_->stop(SIGTERM), 0));
  auto answer = in_flight.get();
  EXPECT_TRUE(has_status(answer, 201));

  auto after = start();  // and what it answered was stored
  EXPECT_TRUE(replayed_header_is(after.post(orders, "k-1", order_body("m-1")), "true"));
}

TEST(CommandLine, MissingAdminTokenExitsWithStatusTwoAndUsage) {
  auto run = run_mock_server_to_exit({"--listen", "127.0.0.1:0", "--db", ":memory:"});
  ASSERT_FALSE(run.timed_out) << run.output;
  EXPECT_TRUE(exited_with(run.wait_status, 2)) << run.wait_status << '\n' << run.output;
  EXPECT_NE(run.output.find("--admin-token"), std::string::npos) << run.output;
  EXPECT_NE(run.output.find("usage:"), std::string::npos) << run.output;
}

}  // namespace
}  // namespace idem::kit
