// Key expiry (contract sections 3 and 4): COMPLETED records live until completion + TTL, then
// count as absent and are purged; PROCESSING records never are; the business constraint on
// merchant_order_id keeps blocking duplicates after the key is gone.
#include <gtest/gtest.h>

#include <chrono>
#include <string>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using namespace std::chrono_literals;

// The reaper only runs when the clock is moved (POST /_mock/clock purges at once), never on its
// own timer during a test.
mock::server_options with_ttl(std::chrono::milliseconds ttl) {
  auto options = test_server_options();
  options.key_ttl = ttl;
  options.reaper_interval = std::chrono::hours(1);
  return options;
}

class KeyTtl : public ::testing::Test {
 protected:
  running_server server_{with_ttl(60s)};
  api_client api_{server_.port()};
};

TEST_F(KeyTtl, RecordWithinItsTtlIsStillReplayed) {
  auto first = api_.post(orders, "k-1", order_body("m-1"));
  ASSERT_EQ(first.res.status, 201) << first.res.body;
  api_.advance_clock(59);

  auto replay = api_.post(orders, "k-1", order_body("m-1"));
  EXPECT_TRUE(has_status(replay, 201));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(stat(api_, "records_purged"), 0);
  EXPECT_EQ(stat(api_, "idempotency_records"), 1);
}

TEST_F(KeyTtl, CompletedRecordPastItsTtlIsPurged) {
  api_.create_order("m-1", "k-1");
  api_.create_order("m-2", "k-2");
  ASSERT_EQ(stat(api_, "idempotency_records"), 2);

  api_.advance_clock(61);
  EXPECT_EQ(stat(api_, "records_purged"), 2);  // a fresh server: nothing was purged before
  EXPECT_EQ(stat(api_, "idempotency_records"), 0);
  EXPECT_EQ(stat(api_, "orders"), 2);  // only keys expire, never business data
}

// The status URL lives as long as the key: the configured 60 s, not the default 24 h.
TEST_F(KeyTtl, RequestStatusIsNotFoundAfterThePurge) {
  // A short delay keeps the execution running past the zero async threshold, so the answer is a
  // 202 that names the request.
  api_.set_faults(only(on_create("delay", {{"delay_ms", 100}, {"times", 1}})));
  auto accepted =
      api_.post(orders, "k-1", order_body("m-1"), {{"Prefer", "respond-async, wait=0"}});
  ASSERT_TRUE(has_status(accepted, 202));
  const auto location = accepted.res.header("Location").value_or("/v1/requests/none");
  // A duplicate with `Prefer: wait` is answered once the record completes.
  ASSERT_TRUE(
      has_status(api_.post(orders, "k-1", order_body("m-1"), {{"Prefer", "wait=10"}}), 201));
  auto completed = api_.get(location);
  ASSERT_TRUE(has_status(completed, 200));
  ASSERT_EQ(completed.res.json().value("state", ""), "COMPLETED") << completed.res.body;

  api_.advance_clock(61);
  EXPECT_TRUE(is_problem(api_.get(location), 404, "not-found"));
}

TEST_F(KeyTtl, SameKeyAfterThePurgeIsStoppedByTheBusinessConstraint) {
  auto order_id = api_.create_order("m-1", "k-1");
  api_.advance_clock(61);
  ASSERT_EQ(stat(api_, "idempotency_records"), 0);

  auto again = api_.post(orders, "k-1", order_body("m-1"));
  ASSERT_TRUE(is_problem(again, 409, "duplicate-business-id"));
  EXPECT_EQ(again.res.json().value("existing_order_id", ""), order_id);
  EXPECT_EQ(again.res.header("Location"), "/v1/orders/" + order_id);
  // A new record executed (the old one is gone): not a replay.
  EXPECT_TRUE(replayed_header_is(again, "false"));
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "business_id_conflicts"), 1);
  // One key ever tried this merchant_order_id, however often.
  EXPECT_EQ(stat(api_, "max_keys_per_business_id"), 1);
}

TEST_F(KeyTtl, NewKeyForTheSameBusinessIdGetsTheExistingOrder) {
  auto order_id = api_.create_order("m-1", "k-1");
  api_.advance_clock(61);

  auto other = api_.post(orders, "k-2", order_body("m-1"));
  ASSERT_TRUE(is_problem(other, 409, "duplicate-business-id"));
  EXPECT_EQ(other.res.json().value("existing_order_id", ""), order_id);
  EXPECT_EQ(other.res.header("Location"), "/v1/orders/" + order_id);
  EXPECT_EQ(stat(api_, "orders"), 1);
  // Two distinct keys tried to create m-1: what a client that re-mints keys looks like.
  EXPECT_EQ(stat(api_, "max_keys_per_business_id"), 2);
}

TEST_F(KeyTtl, ProcessingRecordIsNeverPurged) {
  api_.set_faults(only(on_create("crash_during_processing", {{"times", 1}})));
  auto crashed = api_.post(orders, "k-crash", order_body("m-crash"));
  EXPECT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();
  api_.create_order("m-done", "k-done");

  api_.advance_clock(24 * 3600);               // far past both the TTL and the lease
  EXPECT_EQ(stat(api_, "records_purged"), 1);  // the completed one
  EXPECT_EQ(stat(api_, "idempotency_records"), 1);

  // The PROCESSING record is still there to be taken over.
  auto retry = api_.post(orders, "k-crash", order_body("m-crash"));
  EXPECT_TRUE(has_status(retry, 201));
  EXPECT_EQ(stat(api_, "orders"), 2);
}

TEST(KeyExpiry, CompletedRecordPastExpiryCountsAsAbsentBeforeTheReaperRuns) {
  // A zero TTL: every record is past expires_at as soon as it completes, and the reaper (an hour
  // away, and not triggered by a clock move) has not run.
  running_server server{with_ttl(0ms)};
  api_client api{server.port()};
  auto order_id = api.create_order("m-1", "k-1");
  ASSERT_EQ(stat(api, "idempotency_records"), 1);
  ASSERT_EQ(stat(api, "records_purged"), 0);

  auto again = api.post(orders, "k-1", order_body("m-1"));
  ASSERT_TRUE(is_problem(again, 409, "duplicate-business-id"));
  EXPECT_EQ(again.res.json().value("existing_order_id", ""), order_id);
  EXPECT_TRUE(replayed_header_is(again, "false"));
  EXPECT_EQ(stat(api, "replays"), 0);
  EXPECT_EQ(stat(api, "orders"), 1);
}

}  // namespace
}  // namespace idem::kit
