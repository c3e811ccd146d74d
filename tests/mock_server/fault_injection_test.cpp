// Every fault of contract section 6 over real sockets, each ending with the work done exactly
// once (checked in /_mock/stats), plus the semantics of the rules themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <string>
#include <vector>

#include "tests/support/api_client.hpp"
#include "tests/support/integration.hpp"
#include "tests/support/running_server.hpp"

namespace {

using idem::testing::api_client;
using idem::testing::eventually;
using idem::testing::http_result;
using idem::testing::order_body;
using idem::testing::payment_body;
using idem::testing::problem_name;
using idem::testing::running_server;
using idem::testing::stat;
using json = nlohmann::json;
using namespace std::chrono_literals;

const std::string orders = "/v1/orders";

json one_rule(json rule, std::uint64_t seed = 0) {
  return {{"seed", seed}, {"rules", json::array({std::move(rule)})}};
}

json on_create(std::string fault) {
  return {{"match", {{"method", "POST"}, {"route", orders}}}, {"fault", std::move(fault)}};
}

json on_payment(std::string fault) {
  return {{"match", {{"method", "POST"}, {"route", "/v1/orders/{id}/payments"}}},
          {"fault", std::move(fault)}};
}

std::string payments_of(const std::string& order_id) {
  return orders + "/" + order_id + "/payments";
}

class FaultInjection : public ::testing::Test {
 protected:
  running_server server_;
  api_client api_{server_.port()};
};

TEST_F(FaultInjection, ResetBeforeProcessingStoresNothingAndRetryExecutes) {
  auto rule = on_create("reset_before_processing");
  rule["times"] = 1;
  api_.set_faults(one_rule(rule));

  auto first = api_.post(orders, "k-reset", order_body("m-reset"));
  EXPECT_EQ(first.ec, std::errc::connection_reset) << first.ec.message();
  EXPECT_EQ(stat(api_, "orders"), 0);
  EXPECT_EQ(stat(api_, "idempotency_records"), 0);

  auto retry = api_.post(orders, "k-reset", order_body("m-reset"));
  ASSERT_TRUE(retry.ok()) << retry.ec.message();
  EXPECT_EQ(retry.res.status, 201) << retry.res.body;
  EXPECT_EQ(retry.res.header("Idempotent-Replayed"), "false");
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "faults_injected"), 1);
}

TEST_F(FaultInjection, StatusBeforeProcessingHasNoEffectAndRetryExecutes) {
  auto rule = on_create("status_before_processing");
  rule["times"] = 1;
  rule["status"] = 503;
  rule["retry_after_s"] = 7;
  api_.set_faults(one_rule(rule));

  auto first = api_.post(orders, "k-503", order_body("m-503"));
  ASSERT_TRUE(first.ok()) << first.ec.message();
  EXPECT_EQ(first.res.status, 503);
  EXPECT_EQ(problem_name(first.res), "unavailable");
  EXPECT_EQ(first.res.header("Retry-After"), "7");
  EXPECT_EQ(first.res.header("Idempotent-Replayed"), std::nullopt);
  EXPECT_EQ(stat(api_, "orders"), 0);
  EXPECT_EQ(stat(api_, "idempotency_records"), 0);

  auto retry = api_.post(orders, "k-503", order_body("m-503"));
  EXPECT_EQ(retry.res.status, 201) << retry.res.body;
  EXPECT_EQ(retry.res.header("Idempotent-Replayed"), "false");
  EXPECT_EQ(stat(api_, "orders"), 1);
}

TEST_F(FaultInjection, ResponseLostAfterCommitIsReplayedNotReexecuted) {
  auto rule = on_create("drop_response_after_commit");
  rule["times"] = 1;
  api_.set_faults(one_rule(rule));

  auto first = api_.post(orders, "k-drop", order_body("m-drop"));
  EXPECT_EQ(first.ec, std::errc::connection_reset) << first.ec.message();
  EXPECT_EQ(stat(api_, "orders"), 1);

  auto retry = api_.post(orders, "k-drop", order_body("m-drop"));
  ASSERT_EQ(retry.res.status, 201) << retry.res.body;
  EXPECT_EQ(retry.res.header("Idempotent-Replayed"), "true");
  auto lookup = api_.get(orders + "?merchant_order_id=m-drop");
  ASSERT_EQ(lookup.res.status, 200) << lookup.res.body;
  EXPECT_EQ(retry.res.json().at("id"), lookup.res.json().at("data").at(0).at("id"));
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "replays"), 1);
}

class StatusAfterCommit : public FaultInjection, public ::testing::WithParamInterface<int> {};

TEST_P(StatusAfterCommit, ErrorStatusAfterCommitHidesACommitThatTheRetryReplays) {
  auto rule = on_create("status_after_commit");
  rule["times"] = 1;
  rule["status"] = GetParam();
  api_.set_faults(one_rule(rule));

  auto first = api_.post(orders, "k-sac", order_body("m-sac"));
  ASSERT_TRUE(first.ok()) << first.ec.message();
  EXPECT_EQ(first.res.status, GetParam());
  EXPECT_EQ(problem_name(first.res), GetParam() == 500 ? "internal" : "unavailable");
  EXPECT_EQ(first.res.header("Idempotent-Replayed"), std::nullopt);
  EXPECT_EQ(stat(api_, "orders"), 1);

  auto retry = api_.post(orders, "k-sac", order_body("m-sac"));
  EXPECT_EQ(retry.res.status, 201) << retry.res.body;
  EXPECT_EQ(retry.res.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(stat(api_, "orders"), 1);
}

INSTANTIATE_TEST_SUITE_P(Statuses, StatusAfterCommit, ::testing::Values(500, 502, 504));

TEST_F(FaultInjection, StalledResponseAfterCommitTimesOutAndRetryReplays) {
  auto rule = on_create("stall_after_commit");
  rule["times"] = 1;
  rule["delay_ms"] = 3000;
  api_.set_faults(one_rule(rule));

  auto first = api_.post(orders, "k-stall", order_body("m-stall"), {}, 500ms);
  EXPECT_EQ(first.ec, std::errc::timed_out) << first.ec.message() << ' ' << first.res.status;

  auto retry = api_.post(orders, "k-stall", order_body("m-stall"));
  EXPECT_EQ(retry.res.status, 201) << retry.res.body;
  EXPECT_EQ(retry.res.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(stat(api_, "orders"), 1);
}

TEST_F(FaultInjection, DuplicateDuringDelayIsInProgressAndTheFirstCompletes) {
  auto rule = on_create("delay");
  rule["times"] = 1;
  rule["delay_ms"] = 3000;
  api_.set_faults(one_rule(rule));

  auto first = std::async(std::launch::async, [port = server_.port()] {
    api_client own{port};
    return own.post(orders, "k-delay", order_body("m-delay"));
  });
  // The delay fires right after the key is claimed: from then on the lease is held.
  ASSERT_TRUE(eventually([&] { return stat(api_, "faults_injected") == 1; }));

  auto duplicate = api_.post(orders, "k-delay", order_body("m-delay"));
  EXPECT_EQ(duplicate.res.status, 409) << duplicate.res.body;
  EXPECT_EQ(problem_name(duplicate.res), "idempotency-request-in-progress");
  EXPECT_TRUE(duplicate.res.header("Retry-After").has_value());

  auto original = first.get();
  ASSERT_TRUE(original.ok()) << original.ec.message();
  EXPECT_EQ(original.res.status, 201) << original.res.body;
  EXPECT_EQ(original.res.header("Idempotent-Replayed"), "false");
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "in_progress_conflicts"), 1);
}

TEST_F(FaultInjection, CrashDuringPaymentChargesOnceAndTakeoverCompletesIt) {
  auto order_id = api_.create_order("m-crash", "k-create");
  auto rule = on_payment("crash_during_processing");
  rule["times"] = 1;
  api_.set_faults(one_rule(rule));

  auto first = api_.post(payments_of(order_id), "k-pay", payment_body());
  EXPECT_EQ(first.ec, std::errc::connection_reset) << first.ec.message();
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 0);

  api_.advance_clock(31);  // past the default 30 s lease
  auto retry = api_.post(payments_of(order_id), "k-pay", payment_body());
  EXPECT_EQ(retry.res.status, 201) << retry.res.body;
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 1);
  EXPECT_EQ(stat(api_, "orders_with_multiple_charges"), 0);
}

TEST_F(FaultInjection, ProviderTimeoutIsUnavailableAndNextAttemptSettlesWithoutRecharging) {
  auto order_id = api_.create_order("m-pt", "k-create");
  auto rule = on_payment("provider_timeout");
  rule["times"] = 1;
  api_.set_faults(one_rule(rule));

  auto first = api_.post(payments_of(order_id), "k-pay", payment_body());
  ASSERT_TRUE(first.ok()) << first.ec.message();
  EXPECT_EQ(first.res.status, 504) << first.res.body;
  EXPECT_EQ(problem_name(first.res), "unavailable");
  EXPECT_EQ(first.res.header("Retry-After"), "1");
  EXPECT_EQ(first.res.header("Idempotent-Replayed"), std::nullopt);
  EXPECT_EQ(stat(api_, "payments"), 0);

  // No clock advance: the lease was expired on purpose, so the takeover happens at once.
  auto retry = api_.post(payments_of(order_id), "k-pay", payment_body());
  EXPECT_EQ(retry.res.status, 201) << retry.res.body;
  EXPECT_EQ(retry.res.header("Idempotent-Replayed"), "false");
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 1);
}

// ---- rule semantics ----

TEST_F(FaultInjection, TimesLimitsHowOftenARuleFires) {
  auto rule = on_create("status_before_processing");
  rule["times"] = 2;
  api_.set_faults(one_rule(rule));

  std::vector<int> statuses;
  for (int i = 0; i < 4; ++i) {
    auto id = std::to_string(i);
    statuses.push_back(api_.post(orders, "k-" + id, order_body("m-" + id)).res.status);
  }
  EXPECT_EQ(statuses, (std::vector<int>{503, 503, 201, 201}));
  EXPECT_EQ(stat(api_, "faults_injected"), 2);
}

TEST_F(FaultInjection, ProbabilityZeroNeverFires) {
  auto rule = on_create("reset_before_processing");
  rule["probability"] = 0;
  api_.set_faults(one_rule(rule));

  for (int i = 0; i < 20; ++i) {
    auto id = std::to_string(i);
    auto r = api_.post(orders, "k-" + id, order_body("m-" + id));
    ASSERT_TRUE(r.ok()) << i << ": " << r.ec.message();
    EXPECT_EQ(r.res.status, 201) << r.res.body;
  }
  EXPECT_EQ(stat(api_, "faults_injected"), 0);
}

std::vector<int> outcomes_with_seed(std::uint64_t seed) {
  running_server fresh;
  api_client api{fresh.port()};
  auto rule = on_create("status_before_processing");
  rule["probability"] = 0.5;
  api.set_faults(one_rule(rule, seed));
  std::vector<int> statuses;
  for (int i = 0; i < 32; ++i) {
    auto id = std::to_string(i);
    statuses.push_back(api.post(orders, "k-" + id, order_body("m-" + id)).res.status);
  }
  return statuses;
}

TEST(FaultRules, SameSeedGivesTheSameOutcomesOnTwoFreshServers) {
  auto first = outcomes_with_seed(42);
  auto second = outcomes_with_seed(42);
  EXPECT_EQ(first, second);
  // Both outcomes occur, so the equality is not that of two constant sequences.
  EXPECT_NE(std::count(first.begin(), first.end(), 503), 0);
  EXPECT_NE(std::count(first.begin(), first.end(), 201), 0);
}

TEST_F(FaultInjection, RouteTemplateMatchesEveryConcretePath) {
  auto a = api_.create_order("m-a", "k-a");
  auto b = api_.create_order("m-b", "k-b");
  api_.set_faults(one_rule(on_payment("status_before_processing")));

  EXPECT_EQ(api_.post(payments_of(a), "p-a", payment_body()).res.status, 503);
  EXPECT_EQ(api_.post(payments_of(b), "p-b", payment_body()).res.status, 503);
  EXPECT_EQ(api_.post(orders, "k-c", order_body("m-c")).res.status, 201);
  EXPECT_EQ(stat(api_, "faults_injected"), 2);
}

TEST_F(FaultInjection, ConcretePathMatchesOnlyThatPath) {
  auto a = api_.create_order("m-a", "k-a");
  auto b = api_.create_order("m-b", "k-b");
  api_.set_faults(one_rule({{"match", {{"method", "POST"}, {"route", payments_of(a)}}},
                            {"fault", "status_before_processing"}}));

  EXPECT_EQ(api_.post(payments_of(b), "p-b", payment_body()).res.status, 201);
  EXPECT_EQ(api_.post(payments_of(a), "p-a", payment_body()).res.status, 503);
  EXPECT_EQ(stat(api_, "faults_injected"), 1);
}

TEST_F(FaultInjection, ReplaysAreNeverHitByFaults) {
  auto first = api_.post(orders, "k-1", order_body("m-1"));
  ASSERT_EQ(first.res.status, 201) << first.res.body;
  // Every fault that fires after arrival, unlimited.
  json rules = json::array();
  for (const char* fault : {"crash_during_processing", "delay", "drop_response_after_commit",
                            "status_after_commit", "stall_after_commit", "provider_timeout"}) {
    rules.push_back(on_create(fault));
  }
  api_.set_faults({{"seed", 1}, {"rules", rules}});

  for (int i = 0; i < 3; ++i) {
    auto replay = api_.post(orders, "k-1", order_body("m-1"), {}, 2s);
    ASSERT_TRUE(replay.ok()) << replay.ec.message();
    EXPECT_EQ(replay.res.status, 201) << replay.res.body;
    EXPECT_EQ(replay.res.header("Idempotent-Replayed"), "true");
    EXPECT_EQ(replay.res.body, first.res.body);
  }
  EXPECT_EQ(stat(api_, "faults_injected"), 0);
  EXPECT_EQ(stat(api_, "replays"), 3);
}

TEST_F(FaultInjection, FaultsInjectedCountsEveryFiredFaultAndNothingElse) {
  auto before = on_create("status_before_processing");
  before["times"] = 2;
  auto after = on_create("status_after_commit");
  after["times"] = 1;
  api_.set_faults({{"seed", 0}, {"rules", {before, after}}});

  EXPECT_EQ(api_.post(orders, "k-1", order_body("m-1")).res.status, 503);
  EXPECT_EQ(stat(api_, "faults_injected"), 1);
  EXPECT_EQ(api_.post(orders, "k-1", order_body("m-1")).res.status, 503);
  EXPECT_EQ(stat(api_, "faults_injected"), 2);
  EXPECT_EQ(api_.post(orders, "k-1", order_body("m-1")).res.status, 500);
  EXPECT_EQ(stat(api_, "faults_injected"), 3);
  EXPECT_EQ(api_.post(orders, "k-1", order_body("m-1")).res.status, 201);  // replay
  EXPECT_EQ(api_.get(orders + "?merchant_order_id=m-1").res.status, 200);
  EXPECT_EQ(stat(api_, "faults_injected"), 3);
  EXPECT_EQ(stat(api_, "orders"), 1);
}

}  // namespace
