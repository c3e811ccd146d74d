// Every fault of contract section 6 over real sockets, each ending with the work done exactly
// once (checked in /_mock/stats), plus the semantics of the rules themselves.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using json = nlohmann::json;
using namespace std::chrono_literals;

class FaultInjection : public ::testing::Test {
 protected:
  running_server server_;
  api_client api_{server_.port()};
};

TEST_F(FaultInjection, ResetBeforeProcessingStoresNothingAndRetryExecutes) {
  api_.set_faults(only(on_create("reset_before_processing", {{"times", 1}})));

  auto first = api_.post(orders, "k-reset", order_body("m-reset"));
  EXPECT_EQ(first.ec, std::errc::connection_reset) << first.ec.message();
  EXPECT_EQ(stat(api_, "orders"), 0);
  EXPECT_EQ(stat(api_, "idempotency_records"), 0);

  auto retry = api_.post(orders, "k-reset", order_body("m-reset"));
  EXPECT_TRUE(has_status(retry, 201));
  EXPECT_TRUE(replayed_header_is(retry, "false"));
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "faults_injected"), 1);
}

TEST_F(FaultInjection, StatusBeforeProcessingHasNoEffectAndRetryExecutes) {
  api_.set_faults(only(on_create("status_before_processing",
                                 {{"times", 1}, {"status", 503}, {"retry_after_s", 7}})));

  auto first = api_.post(orders, "k-503", order_body("m-503"));
  EXPECT_TRUE(is_problem(first, 503, "unavailable"));
  EXPECT_EQ(first.res.header("Retry-After"), "7");
  EXPECT_TRUE(has_no_replayed_header(first));
  EXPECT_EQ(stat(api_, "orders"), 0);
  EXPECT_EQ(stat(api_, "idempotency_records"), 0);

  auto retry = api_.post(orders, "k-503", order_body("m-503"));
  EXPECT_TRUE(has_status(retry, 201));
  EXPECT_TRUE(replayed_header_is(retry, "false"));
  EXPECT_EQ(stat(api_, "orders"), 1);
}

TEST_F(FaultInjection, ResponseLostAfterCommitIsReplayedNotReexecuted) {
  api_.set_faults(only(on_create("drop_response_after_commit", {{"times", 1}})));

  auto first = api_.post(orders, "k-drop", order_body("m-drop"));
  EXPECT_EQ(first.ec, std::errc::connection_reset) << first.ec.message();
  EXPECT_EQ(stat(api_, "orders"), 1);

  auto retry = api_.post(orders, "k-drop", order_body("m-drop"));
  ASSERT_TRUE(has_status(retry, 201));
  EXPECT_TRUE(replayed_header_is(retry, "true"));
  auto lookup = api_.get(orders + "?merchant_order_id=m-drop");
  ASSERT_TRUE(has_status(lookup, 200));
  EXPECT_EQ(retry.res.json().at("id"), lookup.res.json().at("data").at(0).at("id"));
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "replays"), 1);
}

class StatusAfterCommit : public FaultInjection, public ::testing::WithParamInterface<int> {};

TEST_P(StatusAfterCommit, ErrorStatusAfterCommitHidesACommitThatTheRetryReplays) {
  api_.set_faults(only(on_create("status_after_commit", {{"times", 1}, {"status", GetParam()}})));

  auto first = api_.post(orders, "k-sac", order_body("m-sac"));
  EXPECT_TRUE(is_problem(first, GetParam(), GetParam() == 500 ? "internal" : "unavailable"));
  EXPECT_TRUE(has_no_replayed_header(first));
  EXPECT_EQ(stat(api_, "orders"), 1);

  auto retry = api_.post(orders, "k-sac", order_body("m-sac"));
  EXPECT_TRUE(has_status(retry, 201));
  EXPECT_TRUE(replayed_header_is(retry, "true"));
  EXPECT_EQ(stat(api_, "orders"), 1);
}

INSTANTIATE_TEST_SUITE_P(Statuses, StatusAfterCommit, ::testing::Values(500, 502, 504));

TEST_F(FaultInjection, StalledResponseAfterCommitTimesOutAndRetryReplays) {
  api_.set_faults(only(on_create("stall_after_commit", {{"times", 1}, {"delay_ms", 3000}})));

  auto first = api_.post(orders, "k-stall", order_body("m-stall"), {}, 500ms);
  EXPECT_EQ(first.ec, std::errc::timed_out) << first.ec.message() << ' ' << first.res.status;

  auto retry = api_.post(orders, "k-stall", order_body("m-stall"));
  EXPECT_TRUE(has_status(retry, 201));
  EXPECT_TRUE(replayed_header_is(retry, "true"));
  EXPECT_EQ(stat(api_, "orders"), 1);
}

TEST_F(FaultInjection, DuplicateDuringDelayIsInProgressAndTheFirstCompletes) {
  api_.set_faults(only(on_create("delay", {{"times", 1}, {"delay_ms", 3000}})));

  auto first = std::async(std::launch::async, [port = server_.port()] {
    api_client own{port};
    return own.post(orders, "k-delay", order_body("m-delay"));
  });
  // The delay fires right after the key is claimed: from then on the lease is held.
  ASSERT_TRUE(eventually([&] { return stat(api_, "faults_injected") == 1; }));

  auto duplicate = api_.post(orders, "k-delay", order_body("m-delay"));
  EXPECT_TRUE(is_problem(duplicate, 409, "idempotency-request-in-progress"));
  EXPECT_TRUE(duplicate.res.header("Retry-After").has_value());

  auto original = first.get();
  EXPECT_TRUE(has_status(original, 201));
  EXPECT_TRUE(replayed_header_is(original, "false"));
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "in_progress_conflicts"), 1);
}

TEST_F(FaultInjection, ProviderTimeoutIsUnavailableAndNextAttemptSettlesWithoutRecharging) {
  auto order_id = api_.create_order("m-pt", "k-create");
  api_.set_faults(only(on_pay("provider_timeout", {{"times", 1}})));

  auto first = api_.post(payments_of(order_id), "k-pay", payment_body());
  EXPECT_TRUE(is_problem(first, 504, "unavailable"));
  EXPECT_EQ(first.res.header("Retry-After"), "1");
  EXPECT_TRUE(has_no_replayed_header(first));
  EXPECT_EQ(stat(api_, "payments"), 0);

  // No clock advance: the lease was expired on purpose, so the takeover happens at once.
  auto retry = api_.post(payments_of(order_id), "k-pay", payment_body());
  EXPECT_TRUE(has_status(retry, 201));
  EXPECT_TRUE(replayed_header_is(retry, "false"));
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 1);
}

// ---- rule semantics ----

TEST_F(FaultInjection, TimesLimitsHowOftenARuleFires) {
  api_.set_faults(only(on_create("status_before_processing", {{"times", 2}})));

  std::vector<int> statuses;
  for (int i = 0; i < 4; ++i) {
    auto id = std::to_string(i);
    statuses.push_back(api_.post(orders, "k-" + id, order_body("m-" + id)).res.status);
  }
  EXPECT_EQ(statuses, (std::vector<int>{503, 503, 201, 201}));
  EXPECT_EQ(stat(api_, "faults_injected"), 2);
}

TEST_F(FaultInjection, ProbabilityZeroNeverFires) {
  api_.set_faults(only(on_create("reset_before_processing", {{"probability", 0}})));

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
  api.set_faults(
      fault_config({on_create("status_before_processing", {{"probability", 0.5}})}, seed));
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
  api_.set_faults(only(on_pay("status_before_processing")));

  EXPECT_EQ(api_.post(payments_of(a), "p-a", payment_body()).res.status, 503);
  EXPECT_EQ(api_.post(payments_of(b), "p-b", payment_body()).res.status, 503);
  EXPECT_EQ(api_.post(orders, "k-c", order_body("m-c")).res.status, 201);
  EXPECT_EQ(stat(api_, "faults_injected"), 2);
}

TEST_F(FaultInjection, ConcretePathMatchesOnlyThatPath) {
  auto a = api_.create_order("m-a", "k-a");
  auto b = api_.create_order("m-b", "k-b");
  api_.set_faults(only(fault_rule("status_before_processing", payments_of(a))));

  EXPECT_EQ(api_.post(payments_of(b), "p-b", payment_body()).res.status, 201);
  EXPECT_EQ(api_.post(payments_of(a), "p-a", payment_body()).res.status, 503);
  EXPECT_EQ(stat(api_, "faults_injected"), 1);
}

TEST_F(FaultInjection, ReplaysAreNeverHitByFaults) {
  auto first = api_.post(orders, "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(first, 201));
  // Every fault that fires after arrival, unlimited.
  std::vector<json> rules;
  for (const char* fault : {"crash_during_processing", "delay", "drop_response_after_commit",
                            "status_after_commit", "stall_after_commit", "provider_timeout"}) {
    rules.push_back(on_create(fault));
  }
  api_.set_faults(fault_config(std::move(rules), 1));

  for (int i = 0; i < 3; ++i) {
    auto replay = api_.post(orders, "k-1", order_body("m-1"), {}, 2s);
    ASSERT_TRUE(has_status(replay, 201));
    EXPECT_TRUE(replayed_header_is(replay, "true"));
    EXPECT_EQ(replay.res.body, first.res.body);
  }
  EXPECT_EQ(stat(api_, "faults_injected"), 0);
  EXPECT_EQ(stat(api_, "replays"), 3);
}

TEST_F(FaultInjection, FaultsInjectedCountsEveryFiredFaultAndNothingElse) {
  api_.set_faults(fault_config({on_create("status_before_processing", {{"times", 2}}),
                                on_create("status_after_commit", {{"times", 1}})},
                               0));

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
}  // namespace idem::kit
