// The `hold_in_processing` fault over real sockets: an execution held in PROCESSING makes a racing
// duplicate meet "in progress" (409 with Retry-After), or wait for the first answer with
// `Prefer: wait`; the hold stays inside the record's lease, and a server killed during the hold
// leaves a record that the restart's recovery executes exactly once.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/mock_server/support/held_create.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_db_file.hpp"

namespace idem::kit {
namespace {

using namespace std::chrono_literals;

const mock::header_list hold_respond_async{{"Prefer", "respond-async"}};

// One create held for `hold_ms`, once.
nlohmann::json hold_one_create(int hold_ms) {
  return only(on_create("hold_in_processing", {{"delay_ms", hold_ms}, {"times", 1}}));
}

class HoldInProcessing : public ::testing::Test, protected held_create_server {
 protected:
  // Starts POST /v1/orders (k-hold, m-hold) under a hold of `hold_ms`; returns its 202.
  http_result start_held(int hold_ms) {
    return start_held_create(hold_one_create(hold_ms), "k-hold", "m-hold");
  }
};

TEST_F(HoldInProcessing, ARacingDuplicateGetsInProgressWithRetryAfter) {
  const auto first = start_held(3000);
  ASSERT_TRUE(has_status(first, 202));

  const auto racing = duplicate.post(orders, "k-hold", order_body("m-hold"));
  EXPECT_TRUE(is_problem(racing, 409, "idempotency-request-in-progress"));
  EXPECT_TRUE(has_no_replayed_header(racing));
  const auto retry_after = std::stoi(racing.res.header("Retry-After").value_or("0"));
  EXPECT_GE(retry_after, 1);
  EXPECT_LE(retry_after, 5);
  EXPECT_EQ(racing.res.json().value("request_id", ""), first.res.json().value("request_id", "-"));
  EXPECT_EQ(stat(api, "in_progress_conflicts"), 1);
  EXPECT_EQ(stat(api, "faults_injected"), 1);
}

TEST_F(HoldInProcessing, PreferWaitGetsTheReplayOfTheFirstAnswerAndOneOrderIsCreated) {
  ASSERT_TRUE(has_status(start_held(1500), 202));

  const auto waited =
      duplicate.post(orders, "k-hold", order_body("m-hold"), {{"Prefer", "wait=10"}});
  ASSERT_TRUE(has_status(waited, 201));
  EXPECT_TRUE(replayed_header_is(waited, "true"));
  EXPECT_EQ(waited.res.json()["merchant_order_id"], "m-hold");

  const auto again = api.post(orders, "k-hold", order_body("m-hold"));
  ASSERT_TRUE(has_status(again, 201));
  EXPECT_EQ(again.res.body, waited.res.body);  // the first execution's answer, byte for byte
  EXPECT_EQ(stat(api, "orders"), 1);
  EXPECT_EQ(stat(api, "in_progress_conflicts"), 0);
}

// A `delay` is a slow executor and may outlive its lease (a waiting duplicate then takes the
// record over when the lease runs out, and executes it); a hold lengthens the lease by its own
// length, so that even a lease shorter than the hold finds the first execution running to its end.
TEST(HoldInProcessingLease, AHoldLongerThanTheLeaseIsNeverTakenOver) {
  held_create_server s{2s};
  ASSERT_TRUE(has_status(s.start_held_create(hold_one_create(3000), "k-hold", "m-hold"), 202));

  const auto racing = s.duplicate.post(orders, "k-hold", order_body("m-hold"));
  EXPECT_TRUE(is_problem(racing, 409, "idempotency-request-in-progress"));
  // Waits past the 2 s lease as claimed, and wakes when the held execution completes.
  const auto waited =
      s.duplicate.post(orders, "k-hold", order_body("m-hold"), {{"Prefer", "wait=10"}});
  ASSERT_TRUE(has_status(waited, 201));
  EXPECT_TRUE(replayed_header_is(waited, "true"));
  EXPECT_EQ(stat(s.api, "orders"), 1);
}

TEST_F(HoldInProcessing, OnlyMatchingExecutionsAreHeldAndTimesIsSpent) {
  // Held on payments only: a create still completes in one step, a duplicate gets its replay.
  ASSERT_NO_FATAL_FAILURE(
      api.set_faults(only(on_pay("hold_in_processing", {{"delay_ms", 3000}, {"times", 1}}))));
  const auto created = api.post(orders, "k-1", order_body("m-1"), hold_respond_async);
  ASSERT_TRUE(has_status(created, 201));
  EXPECT_TRUE(replayed_header_is(duplicate.post(orders, "k-1", order_body("m-1")), "true"));
  EXPECT_EQ(stat(api, "faults_injected"), 0);

  // The one hold spent by the first create, the second create is not held.
  ASSERT_NO_FATAL_FAILURE(api.set_faults(hold_one_create(1000)));
  ASSERT_TRUE(has_status(api.post(orders, "k-2", order_body("m-2")), 201));
  EXPECT_TRUE(has_status(api.post(orders, "k-3", order_body("m-3"), hold_respond_async), 201));
  EXPECT_EQ(stat(api, "faults_injected"), 1);
  EXPECT_EQ(api.admin("GET", "/_mock/faults").res.json()["rules"][0]["times"], 0);
}

// The real binary killed while it holds a create: the record is left PROCESSING with nothing
// done, the restart expires its lease, and the retry executes it once.
TEST(HoldInProcessingCrash, AKillDuringTheHoldLeavesARecordTheRestartExecutesOnce) {
  const temp_db_file db;  // declared first: the server is gone before its files are removed
  const std::vector<std::string> args{"--listen",      "127.0.0.1:0", "--db",          db.path(),
                                      "--admin-token", admin_token,   "--async-after", "200ms"};
  std::optional<server_process> server{std::in_place, args};
  api_client before{server->port()};
  ASSERT_NO_FATAL_FAILURE(before.set_faults(hold_one_create(60'000)));
  ASSERT_TRUE(
      has_status(before.post(orders, "k-kill", order_body("m-kill"), hold_respond_async), 202));
  EXPECT_EQ(stat(before, "idempotency_records"), 1);

  server->stop(SIGKILL);
  server.emplace(args);  // the same database
  api_client after{server->port()};
  const auto retry = after.post(orders, "k-kill", order_body("m-kill"));
  ASSERT_TRUE(has_status(retry, 201));
  EXPECT_TRUE(replayed_header_is(retry, "false"));
  EXPECT_TRUE(replayed_header_is(after.post(orders, "k-kill", order_body("m-kill")), "true"));
  EXPECT_EQ(stat(after, "orders"), 1);
}

}  // namespace
}  // namespace idem::kit
