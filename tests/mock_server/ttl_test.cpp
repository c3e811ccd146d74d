// Key expiry (contract sections 3 and 4): COMPLETED records live until completion + TTL, then
// count as absent and are purged; PROCESSING records never are; the business constraint on
// merchant_order_id keeps blocking duplicates after the key is gone.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/api_client.hpp"
#include "tests/support/integration.hpp"
#include "tests/support/running_server.hpp"

namespace {

using idem::testing::api_client;
using idem::testing::eventually;
using idem::testing::order_body;
using idem::testing::problem_name;
using idem::testing::running_server;
using idem::testing::stat;
using json = nlohmann::json;
using namespace std::chrono_literals;

const std::string orders = "/v1/orders";

// The reaper only runs when the clock is moved (POST /_mock/clock purges at once), never on its
// own timer during a test.
idem::mock::server_options with_ttl(std::chrono::milliseconds ttl) {
  auto options = idem::testing::test_server_options();
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
  EXPECT_EQ(replay.res.status, 201) << replay.res.body;
  EXPECT_EQ(replay.res.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(stat(api_, "records_purged"), 0);
  EXPECT_EQ(stat(api_, "idempotency_records"), 1);
}

TEST_F(KeyTtl, CompletedRecordPastItsTtlIsPurged) {
  api_.create_order("m-1", "k-1");
  api_.create_order("m-2", "k-2");
  ASSERT_EQ(stat(api_, "idempotency_records"), 2);

  api_.advance_clock(61);
  EXPECT_GE(stat(api_, "records_purged"), 2);
  EXPECT_EQ(stat(api_, "idempotency_records"), 0);
  EXPECT_EQ(stat(api_, "orders"), 2);  // only keys expire, never business data
}

TEST_F(KeyTtl, RequestStatusIsNotFoundAfterThePurge) {
  // A short delay keeps the execution running past the zero async threshold, so the answer is a
  // 202 that names the request.
  api_.set_faults({{"rules", {{{"fault", "delay"}, {"delay_ms", 100}, {"times", 1}}}}});
  auto accepted =
      api_.post(orders, "k-1", order_body("m-1"), {{"Prefer", "respond-async, wait=0"}});
  ASSERT_EQ(accepted.res.status, 202) << accepted.res.body;
  auto location = accepted.res.header("Location");
  ASSERT_TRUE(location.has_value());
  ASSERT_TRUE(eventually([&] {
    auto r = api_.get(*location);
    return r.res.status == 200 && r.res.json().at("state") == "COMPLETED";
  }));

  api_.advance_clock(61);
  auto gone = api_.get(*location);
  EXPECT_EQ(gone.res.status, 404) << gone.res.body;
  EXPECT_EQ(problem_name(gone.res), "not-found");
}

TEST_F(KeyTtl, SameKeyAfterThePurgeIsStoppedByTheBusinessConstraint) {
  auto order_id = api_.create_order("m-1", "k-1");
  api_.advance_clock(61);
  ASSERT_EQ(stat(api_, "idempotency_records"), 0);

  auto again = api_.post(orders, "k-1", order_body("m-1"));
  ASSERT_TRUE(again.ok()) << again.ec.message();
  EXPECT_EQ(again.res.status, 409) << again.res.body;
  EXPECT_EQ(problem_name(again.res), "duplicate-business-id");
  EXPECT_EQ(again.res.json().value("existing_order_id", ""), order_id);
  EXPECT_EQ(again.res.header("Location"), "/v1/orders/" + order_id);
  // A new record executed (the old one is gone): not a replay.
  EXPECT_EQ(again.res.header("Idempotent-Replayed"), "false");
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "business_id_conflicts"), 1);
  // One key ever tried this merchant_order_id, however often.
  EXPECT_EQ(stat(api_, "max_keys_per_business_id"), 1);
}

TEST_F(KeyTtl, NewKeyForTheSameBusinessIdGetsTheExistingOrder) {
  auto order_id = api_.create_order("m-1", "k-1");
  api_.advance_clock(61);

  auto other = api_.post(orders, "k-2", order_body("m-1"));
  ASSERT_TRUE(other.ok()) << other.ec.message();
  EXPECT_EQ(other.res.status, 409) << other.res.body;
  EXPECT_EQ(problem_name(other.res), "duplicate-business-id");
  EXPECT_EQ(other.res.json().value("existing_order_id", ""), order_id);
  EXPECT_EQ(other.res.header("Location"), "/v1/orders/" + order_id);
  EXPECT_EQ(stat(api_, "orders"), 1);
  // Two distinct keys tried to create m-1: what a client that re-mints keys looks like.
  EXPECT_EQ(stat(api_, "max_keys_per_business_id"), 2);
}

TEST_F(KeyTtl, ProcessingRecordIsNeverPurged) {
  api_.set_faults({{"rules",
                    {{{"match", {{"method", "POST"}, {"route", orders}}},
                      {"fault", "crash_during_processing"},
                      {"times", 1}}}}});
  auto crashed = api_.post(orders, "k-crash", order_body("m-crash"));
  EXPECT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();
  api_.create_order("m-done", "k-done");

  api_.advance_clock(24 * 3600);               // far past both the TTL and the lease
  EXPECT_EQ(stat(api_, "records_purged"), 1);  // the completed one
  EXPECT_EQ(stat(api_, "idempotency_records"), 1);

  // The PROCESSING record is still there to be taken over.
  auto retry = api_.post(orders, "k-crash", order_body("m-crash"));
  EXPECT_EQ(retry.res.status, 201) << retry.res.body;
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
  EXPECT_EQ(again.res.status, 409) << again.res.body;
  EXPECT_EQ(problem_name(again.res), "duplicate-business-id");
  EXPECT_EQ(again.res.json().value("existing_order_id", ""), order_id);
  EXPECT_EQ(again.res.header("Idempotent-Replayed"), "false");
  EXPECT_EQ(stat(api, "replays"), 0);
  EXPECT_EQ(stat(api, "orders"), 1);
}

}  // namespace
