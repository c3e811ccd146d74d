// `Prefer: wait=N` and `Prefer: respond-async` (contract sections 1 and 3) over real sockets:
// waiting for a busy key's result, 202 with a status URL, and GET /v1/requests/{id}.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/mock_server/support/held_create.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using namespace std::chrono_literals;

const mock::header_list respond_async{{"Prefer", "respond-async"}};

// A server that answers `Prefer: respond-async` with 202 once a request has run 200 ms, and a
// second connection (`duplicate`) for the request that overlaps.
class async_and_wait_test : public ::testing::Test, protected held_create_server {
 protected:
  // Starts POST /v1/orders (k-1, m-1) with respond-async under a delay of `delay_ms` on its
  // execution; the 202 proves that the execution holds the key. Returns the 202.
  http_result start_delayed(int delay_ms) {
    return start_held_create(only(on_create("delay", {{"delay_ms", delay_ms}, {"times", 1}})),
                             "k-1", "m-1");
  }
};

TEST_F(async_and_wait_test, PreferWaitOnBusyKeyReturnsTheFirstResult) {
  ASSERT_TRUE(has_status(start_delayed(1500), 202));
  auto r = duplicate.post("/v1/orders", "k-1", order_body("m-1"), {{"Prefer", "wait=5"}});
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_TRUE(replayed_header_is(r, "true"));
  EXPECT_EQ(r.res.json()["merchant_order_id"], "m-1");
  auto stats = api.stats();
  EXPECT_EQ(stats["orders"], 1);
  EXPECT_EQ(stats["in_progress_conflicts"], 0);
}

TEST_F(async_and_wait_test, PreferWaitThatRunsOutGetsInProgress) {
  ASSERT_TRUE(has_status(start_delayed(5000), 202));
  auto r = duplicate.post("/v1/orders", "k-1", order_body("m-1"), {{"Prefer", "wait=1"}});
  EXPECT_TRUE(is_problem(r, 409, "idempotency-request-in-progress"));
}

TEST_F(async_and_wait_test, RespondAsyncFinishedWithinThresholdAnswersDirectly) {
  auto r = api.post("/v1/orders", "k-1", order_body("m-1"), respond_async);
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_TRUE(replayed_header_is(r, "false"));
}

TEST_F(async_and_wait_test, RespondAsyncOfSlowRequestIs202WithStatusLocation) {
  auto r = start_delayed(1500);
  ASSERT_TRUE(has_status(r, 202));
  auto body = r.res.json();
  ASSERT_TRUE(body["request_id"].is_string()) << r.res.body;
  const auto request_id = body["request_id"].get<std::string>();
  EXPECT_FALSE(request_id.empty());
  EXPECT_EQ(body["state"], "PROCESSING");
  EXPECT_EQ(r.res.header("Location").value_or(""), "/v1/requests/" + request_id);
  EXPECT_TRUE(has_no_replayed_header(r));
}

TEST_F(async_and_wait_test, StatusUrlIsProcessingWithNullResponseWhileRunning) {
  auto accepted = start_delayed(5000);
  ASSERT_TRUE(has_status(accepted, 202));
  auto r = api.get(accepted.res.header("Location").value_or("/v1/requests/none"));
  ASSERT_TRUE(has_status(r, 200));
  auto body = r.res.json();
  EXPECT_EQ(body["state"], "PROCESSING");
  ASSERT_TRUE(body.contains("response")) << r.res.body;
  EXPECT_TRUE(body["response"].is_null()) << r.res.body;
}

TEST_F(async_and_wait_test, StatusUrlShowsTheStoredResponseOnceCompleted) {
  auto accepted = start_delayed(1000);
  ASSERT_TRUE(has_status(accepted, 202));
  // Wait on the server's own completion event instead of polling: a duplicate with
  // `Prefer: wait` returns as soon as the record completes.
  auto waited = duplicate.post("/v1/orders", "k-1", order_body("m-1"), {{"Prefer", "wait=10"}});
  ASSERT_TRUE(has_status(waited, 201));
  auto r = api.get(accepted.res.header("Location").value_or(""));
  ASSERT_TRUE(has_status(r, 200));
  auto status = r.res.json();
  ASSERT_EQ(status.value("state", ""), "COMPLETED") << status;
  EXPECT_EQ(status["response"]["status"], 201);
  auto stored = status["response"]["body"];
  EXPECT_EQ(stored["merchant_order_id"], "m-1");
  ASSERT_TRUE(stored["id"].is_string()) << status;

  auto replay = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(replay, 201));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(replay.res.json(), stored);
}

TEST_F(async_and_wait_test, RespondAsyncDuplicateOfBusyKeyPointsAtTheOriginal) {
  auto accepted = start_delayed(3000);
  ASSERT_TRUE(has_status(accepted, 202));
  auto r = duplicate.post("/v1/orders", "k-1", order_body("m-1"), respond_async);
  ASSERT_TRUE(has_status(r, 202));
  EXPECT_EQ(r.res.header("Location"), accepted.res.header("Location"));
  EXPECT_EQ(r.res.json()["request_id"], accepted.res.json()["request_id"]);
}

TEST_F(async_and_wait_test, WaitPreferenceOverridesTheAsyncThreshold) {
  ASSERT_NO_FATAL_FAILURE(
      api.set_faults(only(on_create("delay", {{"delay_ms", 1000}, {"times", 1}}))));
  auto r = api.post("/v1/orders", "k-1", order_body("m-1"), {{"Prefer", "respond-async, wait=5"}});
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_TRUE(replayed_header_is(r, "false"));
}

TEST_F(async_and_wait_test, StatusUrlOfAnotherPrincipalIsNotFound) {
  auto accepted = start_delayed(1000);
  ASSERT_TRUE(has_status(accepted, 202));
  const auto location = accepted.res.header("Location").value_or("");
  api_client other_tenant{server.port(), "tenant-b"};
  EXPECT_TRUE(is_problem(other_tenant.get(location), 404, "not-found"));
  // Not merely missing: the owner does see it.
  EXPECT_TRUE(has_status(api.get(location), 200));
}

TEST_F(async_and_wait_test, StatusUrlIsNotFoundAfterThePurge) {
  auto accepted = start_delayed(500);
  ASSERT_TRUE(has_status(accepted, 202));
  // Waiting for the result with a duplicate ends once the record is COMPLETED.
  ASSERT_TRUE(has_status(
      duplicate.post("/v1/orders", "k-1", order_body("m-1"), {{"Prefer", "wait=10"}}), 201));
  const auto location = accepted.res.header("Location").value_or("");
  ASSERT_TRUE(has_status(api.get(location), 200));
  ASSERT_NO_FATAL_FAILURE(api.advance_clock(24 * 3600 + 1));  // past the default 24 h TTL
  EXPECT_TRUE(is_problem(api.get(location), 404, "not-found"));
}

}  // namespace
}  // namespace idem::kit
