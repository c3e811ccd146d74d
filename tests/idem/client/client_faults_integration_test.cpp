// The real client against the real mock server under each fault of contract section 6: every
// scenario ends with the intent succeeded and its effect on the server's books exactly once.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "tests/idem/support/live_client.hpp"

namespace idem::test::live {
namespace {

using kit::api_client;
using kit::running_server;

TEST(LiveClientFaults, ConnectionResetBeforeProcessingIsRetriedAndCreatesOnce) {
  running_server server;
  api_client api{server.port(), tenant};
  api.set_faults(only(on_create("reset_before_processing", {{"times", 2}})));

  const auto o = submit_live(live_options(server.port()), orders::create(order_of("m-reset")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.status(), 201);
  EXPECT_FALSE(o.replayed()) << "nothing was processed before the third attempt";
  EXPECT_EQ(o.attempts(), 3u);
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_EQ(stats["faults_injected"], 2);
  EXPECT_EQ(stats["replays"], 0);
}

class LiveClientNotProcessed : public ::testing::TestWithParam<int> {};

TEST_P(LiveClientNotProcessed, HonoursRetryAfterAndCreatesOnce) {
  running_server server;
  api_client api{server.port(), tenant};
  api.set_faults(only(on_create("status_before_processing",
                                {{"status", GetParam()}, {"retry_after_s", 1}, {"times", 1}})));
  auto options = live_options(server.port());
  auto seen = std::make_shared<recording_observer>();
  options.observer = seen;

  const auto o = submit_live(options, orders::create(order_of("m-not-processed")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.status(), 201);
  EXPECT_FALSE(o.replayed());
  EXPECT_EQ(o.attempts(), 2u);
  EXPECT_EQ(seen->statuses, (std::vector<int>{GetParam(), 201}));
  // The jitter alone would be at most 200 ms: the wait chosen is the server's Retry-After.
  ASSERT_FALSE(seen->waits.empty());
  EXPECT_GE(seen->waits.front(), 1s);
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_EQ(stats["faults_injected"], 1);
}

INSTANTIATE_TEST_SUITE_P(UnavailableAndTooManyRequests, LiveClientNotProcessed,
                         ::testing::Values(503, 429));

TEST(LiveClientFaults, ResponseLostAfterCommitIsReplayedNotReexecuted) {
  running_server server;
  api_client api{server.port(), tenant};
  api.set_faults(only(on_create("drop_response_after_commit", {{"times", 1}})));

  const auto o = submit_live(live_options(server.port()), orders::create(order_of("m-drop")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.status(), 201);
  EXPECT_TRUE(o.replayed());
  EXPECT_FALSE(o.recovered_by_lookup());
  EXPECT_EQ(o.attempts(), 2u);
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_EQ(stats["replays"], 1);
}

TEST(LiveClientFaults, BadGatewayAfterCommitIsReplayedNotReexecuted) {
  running_server server;
  api_client api{server.port(), tenant};
  api.set_faults(only(on_create("status_after_commit", {{"status", 502}, {"times", 1}})));

  const auto o = submit_live(live_options(server.port()), orders::create(order_of("m-502")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.status(), 201);
  EXPECT_TRUE(o.replayed());
  EXPECT_EQ(o.attempts(), 2u);
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_EQ(stats["replays"], 1);
}

TEST(LiveClientFaults, StalledResponseTimesOutAndTheRetryIsReplayed) {
  running_server server;
  api_client api{server.port(), tenant};
  // Held back three times longer than the client waits for one attempt.
  api.set_faults(only(on_create("stall_after_commit", {{"delay_ms", 3000}, {"times", 1}})));
  auto options = live_options(server.port());
  options.deadline.attempt_timeout = 1s;

  const auto o = submit_live(options, orders::create(order_of("m-stall")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.status(), 201);
  EXPECT_TRUE(o.replayed());
  EXPECT_GE(o.attempts(), 2u);
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_GE(stats["replays"], 1);
}

TEST(LiveClientFaults, SlowExecutionAnswersInProgressAndTheClientWaitsForIt) {
  // The first attempt times out (1 s) while the server still holds the key; the retry, about
  // 1 s later, meets 409 in-progress (a 1 s attempt sends no `Prefer: wait`), waits its
  // Retry-After and then gets the replay. The execution takes 3 s, so the retry meets it busy
  // with seconds to spare; the lease outlives it, so the slow executor is never taken over.
  auto server_options = kit::test_server_options();
  server_options.lease = 5s;
  running_server server{server_options};
  api_client api{server.port(), tenant};
  api.set_faults(only(on_create("delay", {{"delay_ms", 3000}, {"times", 1}})));
  auto options = live_options(server.port());
  options.deadline.attempt_timeout = 1s;

  const auto o = submit_live(options, orders::create(order_of("m-delay")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.status(), 201);
  EXPECT_TRUE(o.replayed());
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_GE(stats["in_progress_conflicts"], 1);
}

// Creates the order a payment test pays (with the api_client, no faults yet) and returns its id.
std::string create_order(api_client& api, const std::string& merchant_order_id) {
  return api.create_order(merchant_order_id, "key-" + merchant_order_id);
}

mock::server_options short_lease_options() {
  auto o = kit::test_server_options();
  o.lease = 1s;  // short, so the takeover happens within the client's deadline
  return o;
}

TEST(LiveClientFaults, CrashedExecutorAnswers409UntilItsLeaseRunsOutThenOneCharge) {
  running_server server{short_lease_options()};
  api_client api{server.port(), tenant};
  const auto order_id = create_order(api, "m-crash");
  ASSERT_FALSE(order_id.empty());
  api.set_faults(only(on_pay("crash_during_processing", {{"times", 1}})));
  // Below 2 s the client sends no `Prefer: wait`, so the retry meets 409 in-progress at once.
  auto options = live_options(server.port());
  options.deadline.attempt_timeout = 1s;

  const auto o = submit_live(options, orders::pay(order_id, payment_of()));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << o.body();
  EXPECT_EQ(o.status(), 201);
  EXPECT_GE(o.attempts(), 3u) << "the crash, at least one 409, then the takeover";
  const auto stats = api.stats();
  expect_one_charge(stats);
  EXPECT_GE(stats["in_progress_conflicts"], 1) << "the lease was still running at the retry";
}

TEST(LiveClientFaults, CrashedExecutorIsTakenOverByARetryThatWaitsForItsLease) {
  running_server server{short_lease_options()};
  api_client api{server.port(), tenant};
  const auto order_id = create_order(api, "m-crash-wait");
  ASSERT_FALSE(order_id.empty());
  api.set_faults(only(on_pay("crash_during_processing", {{"times", 1}})));
  // 3 s per attempt: the retry carries `Prefer: wait=2`, longer than the 1 s lease.
  auto options = live_options(server.port());
  options.deadline.attempt_timeout = 3s;

  const auto o = submit_live(options, orders::pay(order_id, payment_of()));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << o.body();
  EXPECT_EQ(o.status(), 201);
  EXPECT_EQ(o.attempts(), 2u) << "the crash, then a retry the server held until the takeover";
  const auto stats = api.stats();
  expect_one_charge(stats);
  EXPECT_EQ(stats["in_progress_conflicts"], 0);
}

TEST(LiveClientFaults, ProviderTimeoutIsSettledOnRetryWithoutChargingAgain) {
  running_server server;
  api_client api{server.port(), tenant};
  const auto order_id = create_order(api, "m-provider");
  ASSERT_FALSE(order_id.empty());
  api.set_faults(only(on_pay("provider_timeout", {{"times", 1}})));

  const auto o = submit_live(live_options(server.port()), orders::pay(order_id, payment_of()));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << o.body();
  EXPECT_EQ(o.status(), 201);
  EXPECT_EQ(o.attempts(), 2u);
  expect_one_charge(api.stats());
}

}  // namespace
}  // namespace idem::test::live
