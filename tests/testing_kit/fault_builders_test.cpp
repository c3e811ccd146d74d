// The test kit's fault builders: the JSON each one makes, and that the real server takes every
// one of them and fires it.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "idem/testing/fault_set.hpp"
#include "idem/testing/mock_server_process.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/processes/mock_server_binary.hpp"

namespace {

namespace kit = idem::kit;
using nlohmann::json;
using namespace std::chrono_literals;

TEST(FaultBuilders, ARuleWithoutModifiersMatchesEverythingAndLeavesDefaultsToTheServer) {
  EXPECT_EQ(kit::fault::drop_response_after_commit().to_json(),
            json::parse(R"({"match": {}, "fault": "drop_response_after_commit"})"));
}

TEST(FaultBuilders, ModifiersSetTheMatchTheDrawAndTheCount) {
  const auto rule = kit::fault::delay(1500ms).on_pay_order().probability(0.25).times(3);
  EXPECT_EQ(rule.to_json(), json::parse(R"({"match": {"method": "POST",
      "route": "/v1/orders/{id}/payments"}, "fault": "delay", "delay_ms": 1500,
      "probability": 0.25, "times": 3})"));
  EXPECT_EQ(rule.kind(), kit::fault_kind::delay);
}

TEST(FaultBuilders, ModifiersReturnCopiesAndLeaveTheOriginalAlone) {
  const auto base = kit::fault::reset_before_processing();
  const auto narrowed = base.on_method("GET").on_route("/v1/orders/o-1");
  EXPECT_EQ(base.to_json()["match"], json::object());
  EXPECT_EQ(narrowed.to_json()["match"],
            json::parse(R"({"method":"GET","route":"/v1/orders/o-1"})"));
}

TEST(FaultBuilders, StatusFaultsCarryTheirStatusAndRetryAfter) {
  EXPECT_EQ(kit::fault::status_before_processing(429, 2s).on_create_order().to_json(),
            json::parse(R"({"match": {"method": "POST", "route": "/v1/orders"},
      "fault": "status_before_processing", "status": 429, "retry_after_s": 2})"));
  EXPECT_EQ(kit::fault::status_after_commit(504).on_cancel_order().to_json(),
            json::parse(R"({"match": {"method": "POST", "route": "/v1/orders/{id}/cancel"},
      "fault": "status_after_commit", "status": 504})"));
  EXPECT_EQ(kit::fault::stall_after_commit(250ms).to_json()["delay_ms"], 250);
}

TEST(FaultBuilders, HoldInProcessingCarriesItsHold) {
  const auto rule = kit::fault::hold_in_processing(400ms).on_create_order().times(1);
  EXPECT_EQ(rule.to_json(), json::parse(R"({"match": {"method": "POST", "route": "/v1/orders"},
      "fault": "hold_in_processing", "delay_ms": 400, "times": 1})"));
  EXPECT_EQ(rule.kind(), kit::fault_kind::hold_in_processing);
  EXPECT_EQ(kit::to_string(kit::fault_kind::hold_in_processing), "hold_in_processing");
  EXPECT_EQ(kit::fault::hold_in_processing().to_json()["delay_ms"], 1000);
}

TEST(FaultBuilders, AFaultSetIsTheWholeConfigurationInOrder) {
  const kit::fault_set set{
      .rules = {kit::fault::provider_timeout().times(1), kit::fault::crash_during_processing()},
      .seed = 7};
  const auto j = set.to_json();
  EXPECT_EQ(j["seed"], 7);
  ASSERT_EQ(j["rules"].size(), 2U);
  EXPECT_EQ(j["rules"][0]["fault"], "provider_timeout");
  EXPECT_EQ(j["rules"][1]["fault"], "crash_during_processing");
}

// Each builder against the real server: the PUT is taken, and one request makes it fire.
struct fault_case {
  std::string name;
  kit::fault rule;
  bool on_payment = false;  // provider_timeout fires at the provider call only
};

std::vector<fault_case> every_fault() {
  return {
      {"reset_before_processing", kit::fault::reset_before_processing()},
      {"status_before_processing", kit::fault::status_before_processing(503, 1s)},
      {"delay", kit::fault::delay(10ms)},
      {"crash_during_processing", kit::fault::crash_during_processing()},
      {"provider_timeout", kit::fault::provider_timeout(), true},
      {"drop_response_after_commit", kit::fault::drop_response_after_commit()},
      {"status_after_commit", kit::fault::status_after_commit(502)},
      {"stall_after_commit", kit::fault::stall_after_commit(10ms)},
      {"hold_in_processing", kit::fault::hold_in_processing(10ms)},
  };
}

class every_fault_test : public ::testing::TestWithParam<fault_case> {};

TEST_P(every_fault_test, TheServerTakesTheRuleAndFiresIt) {
  const auto& c = GetParam();
  auto server = kit::mock_server_process::start({.binary = kit::built_mock_server_binary()});
  ASSERT_TRUE(server.ok()) << server;
  idem::kit::api_client api{server->port(), server->tenant_token()};
  std::string target = "/v1/orders";
  json body = idem::kit::order_body("cart-1");
  if (c.on_payment) {
    target = "/v1/orders/" + api.create_order("cart-1", "k-create") + "/payments";
    body = idem::kit::payment_body();
  }
  const auto rule = c.rule.on_method("POST").times(1);
  const auto put = server->admin().set_faults({.rules = {rule}});
  ASSERT_TRUE(put.ok()) << put;
  auto active = server->admin().faults();
  ASSERT_TRUE(active.ok()) << active;
  ASSERT_EQ((*active)["rules"].size(), 1U) << *active;
  EXPECT_EQ((*active)["rules"][0]["fault"], c.name);

  (void)api.post(target, "k-1", body);
  auto stats = server->admin().stats();
  ASSERT_TRUE(stats.ok()) << stats;
  EXPECT_EQ(stats->faults_injected, 1) << *stats;
  // Spent: times 1 left 0.
  EXPECT_EQ(server->admin().faults().value()["rules"][0]["times"], 0);
}

INSTANTIATE_TEST_SUITE_P(FaultBuilders, every_fault_test, ::testing::ValuesIn(every_fault()),
                         [](const auto& info) { return info.param.name; });

TEST(FaultBuilders, ARuleTheServerRefusesIsAnErrorThatNamesTheField) {
  auto server = kit::mock_server_process::start({.binary = kit::built_mock_server_binary()});
  ASSERT_TRUE(server.ok()) << server;
  const auto put = server->admin().set_faults(
      {.rules = {kit::fault::delay(), kit::fault::status_after_commit(503)}});
  ASSERT_FALSE(put.ok());
  EXPECT_EQ(put.error().code, kit::mock_errc::refused);
  EXPECT_NE(put.describe().find("rules[1].status"), std::string::npos) << put;
  EXPECT_EQ(
      server->admin().set_faults({.rules = {kit::fault::delay().probability(1.5)}}).error().code,
      kit::mock_errc::refused);
}

// What an app's test sees under the hold: its duplicate meets the first request running.
TEST(FaultBuilders, UnderAHoldADuplicateMeetsInProgressWithRetryAfter) {
  auto server = kit::mock_server_process::start(
      {.binary = kit::built_mock_server_binary(),
       .faults =
           kit::fault_set{.rules = {kit::fault::hold_in_processing(3s).on_create_order().times(1)}},
       .extra_args = {"--async-after", "200ms"}});
  ASSERT_TRUE(server.ok()) << server;
  idem::kit::api_client api{server->port(), server->tenant_token()};
  const auto body = idem::kit::order_body("cart-held");
  // 202: the create is still held after 200 ms.
  ASSERT_EQ(api.post("/v1/orders", "k-held", body, {{"Prefer", "respond-async"}}).res.status, 202);

  const auto duplicate = api.post("/v1/orders", "k-held", body);
  EXPECT_EQ(duplicate.res.status, 409) << duplicate.res.body;
  EXPECT_EQ(duplicate.res.json().value("type", ""),
            "https://idem.example/problems/idempotency-request-in-progress");
  EXPECT_TRUE(duplicate.res.header("Retry-After").has_value());
  const auto waited = api.post("/v1/orders", "k-held", body, {{"Prefer", "wait=10"}});
  EXPECT_EQ(waited.res.status, 201) << waited.res.body;
  EXPECT_EQ(waited.res.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(server->admin().stats().value().orders, 1);
}

TEST(FaultBuilders, RulesGivenAtStartAreActiveAndClearFaultsRemovesThem) {
  auto server = kit::mock_server_process::start(
      {.binary = kit::built_mock_server_binary(),
       .faults = kit::fault_set{.rules = {kit::fault::drop_response_after_commit().times(2)}}});
  ASSERT_TRUE(server.ok()) << server;
  auto active = server->admin().faults();
  ASSERT_TRUE(active.ok()) << active;
  ASSERT_EQ((*active)["rules"].size(), 1U);
  EXPECT_EQ((*active)["rules"][0]["times"], 2);
  EXPECT_EQ((*active)["seed"], 42);
  ASSERT_TRUE(server->admin().clear_faults().ok());
  EXPECT_EQ(server->admin().faults().value()["rules"].size(), 0U);
}

}  // namespace
