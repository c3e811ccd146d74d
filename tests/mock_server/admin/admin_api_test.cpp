// The test-control endpoints of contract section 6 over real sockets: admin auth, fault rules,
// stats, the clock, reset, /healthz and /metrics.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using nlohmann::json;

struct admin_call {
  std::string method;
  std::string target;
  std::string body;
};

const std::vector<admin_call> admin_calls{
    {"GET", "/_mock/stats", ""},
    {"GET", "/_mock/faults", ""},
    {"PUT", "/_mock/faults", R"({"rules":[]})"},
    {"DELETE", "/_mock/faults", ""},
    {"POST", "/_mock/clock", R"({"advance_s":100000})"},
    {"POST", "/_mock/reset", ""},
    {"PUT", "/_mock/principals", R"({"tenant-a":"acct"})"},
    {"DELETE", "/_mock/principals", ""},
};

json unavailable_once() {
  return only(on_create("status_before_processing", {{"status", 503}, {"times", 1}}));
}

// The year of an RFC 3339 timestamp such as "2026-11-29T22:00:00.000Z".
int year_of(const json& timestamp) {
  return std::stoi(timestamp.get<std::string>().substr(0, 4));
}

class admin_api_test : public ::testing::Test {
 protected:
  running_server server;
  api_client api{server.port()};
  http_client http{server.port()};
};

TEST_F(admin_api_test, AdminEndpointsRefuseTenantTokens) {
  const auto id = api.create_order("m-1", "k-1");
  for (const auto& call : admin_calls) {
    SCOPED_TRACE(call.method + " " + call.target);
    auto r = http.send(call.method, call.target, {{"Authorization", "Bearer tenant-a"}}, call.body);
    EXPECT_TRUE(is_problem(r, 403, "forbidden"));
  }
  // The refused reset and clock changed nothing: the order and its key are still there.
  EXPECT_TRUE(has_status(api.get("/v1/orders/" + id), 200));
  EXPECT_TRUE(replayed_header_is(api.post("/v1/orders", "k-1", order_body("m-1")), "true"));
}

TEST_F(admin_api_test, AdminEndpointsRequireAToken) {
  for (const auto& call : admin_calls) {
    SCOPED_TRACE(call.method + " " + call.target);
    auto r = http.send(call.method, call.target, {}, call.body);
    EXPECT_TRUE(is_problem(r, 401, "unauthenticated"));
  }
}

TEST_F(admin_api_test, PutFaultsRejectsAnUnknownFaultNameSayingWhich) {
  auto r = api.admin("PUT", "/_mock/faults", {{"rules", json::array({{{"fault", "explode"}}})}});
  ASSERT_TRUE(has_status(r, 400));
  EXPECT_NE(r.res.body.find("explode"), std::string::npos) << r.res.body;
}

TEST_F(admin_api_test, PutFaultsRejectsAProbabilityAboveOne) {
  auto r = api.admin("PUT", "/_mock/faults",
                     {{"rules", json::array({{{"fault", "delay"}, {"probability", 1.5}}})}});
  ASSERT_TRUE(has_status(r, 400));
  EXPECT_NE(r.res.body.find("probability"), std::string::npos) << r.res.body;
}

TEST_F(admin_api_test, RejectedFaultConfigKeepsThePreviousRules) {
  ASSERT_NO_FATAL_FAILURE(api.set_faults(unavailable_once()));
  ASSERT_TRUE(has_status(api.admin("PUT", "/_mock/faults", {{"rules", "not an array"}}), 400));
  auto r = api.admin("GET", "/_mock/faults");
  ASSERT_TRUE(has_status(r, 200));
  ASSERT_EQ(r.res.json()["rules"].size(), 1u) << r.res.body;
}

TEST_F(admin_api_test, GetFaultsReturnsTheRulesPut) {
  ASSERT_NO_FATAL_FAILURE(api.set_faults(fault_config(
      {on_create("status_before_processing",
                 {{"status", 429}, {"retry_after_s", 3}, {"probability", 0.5}, {"times", 10}})},
      42)));
  auto r = api.admin("GET", "/_mock/faults");
  ASSERT_TRUE(has_status(r, 200));
  auto config = r.res.json();
  EXPECT_EQ(config["seed"], 42);
  ASSERT_EQ(config["rules"].size(), 1u) << config;
  auto rule = config["rules"][0];
  EXPECT_EQ(rule["fault"], "status_before_processing");
  EXPECT_EQ(rule["match"], (json{{"method", "POST"}, {"route", "/v1/orders"}}));
  EXPECT_EQ(rule["status"], 429);
  EXPECT_EQ(rule["retry_after_s"], 3);
  EXPECT_EQ(rule["probability"], 0.5);
  EXPECT_EQ(rule["times"], 10);
}

TEST_F(admin_api_test, DeleteFaultsClearsThem) {
  ASSERT_NO_FATAL_FAILURE(api.set_faults(unavailable_once()));
  auto deleted = api.admin("DELETE", "/_mock/faults");
  ASSERT_TRUE(deleted.ok());
  EXPECT_EQ(deleted.res.status / 100, 2) << deleted.res.body;
  auto r = api.admin("GET", "/_mock/faults");
  ASSERT_TRUE(has_status(r, 200));
  EXPECT_EQ(r.res.json()["rules"], json::array());
  EXPECT_TRUE(has_status(api.post("/v1/orders", "k-1", order_body("m-1")), 201));
}

TEST_F(admin_api_test, FaultRuleFiresOnlyItsTimesAndIsNotStored) {
  ASSERT_NO_FATAL_FAILURE(api.set_faults(unavailable_once()));
  EXPECT_TRUE(is_problem(api.post("/v1/orders", "k-1", order_body("m-1")), 503, "unavailable"));
  auto r = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_TRUE(replayed_header_is(r, "false"));
  EXPECT_EQ(api.stats()["faults_injected"], 1);
}

TEST_F(admin_api_test, FaultRouteMatchesAConcretePath) {
  const auto id = api.create_order("m-1", "k-1");
  ASSERT_NO_FATAL_FAILURE(api.set_faults(only(fault_rule(
      "status_before_processing", "/v1/orders/" + id + "/payments", {{"status", 503}}))));
  EXPECT_TRUE(is_problem(api.post("/v1/orders/" + id + "/payments", "p-1", payment_body()), 503,
                         "unavailable"));
  EXPECT_TRUE(has_status(api.post("/v1/orders", "k-2", order_body("m-2")), 201));
}

TEST_F(admin_api_test, SameSeedRepeatsTheSameFaults) {
  auto rule = fault_rule("status_before_processing", "/v1/orders/{id}",
                         {{"status", 503}, {"probability", 0.5}});
  rule["match"]["method"] = "GET";  // the order lookups below
  const json config = fault_config({rule}, 7);
  auto run = [&] {
    std::string statuses;
    api.set_faults(config);
    for (int i = 0; i < 24; ++i) {
      auto r = api.get("/v1/orders/ord_" + std::to_string(i));
      statuses += r.ok() && r.res.status == 503 ? 'F' : r.ok() && r.res.status == 404 ? '-' : '?';
    }
    return statuses;
  };
  const auto first = run();
  EXPECT_NE(first.find('F'), std::string::npos) << first;
  EXPECT_NE(first.find('-'), std::string::npos) << first;
  EXPECT_EQ(run(), first);
}

TEST_F(admin_api_test, StatsHaveEveryContractField) {
  auto stats = api.stats();
  for (const char* field :
       {"requests", "orders", "payments", "provider_charges", "provider_refunds", "replays",
        "key_mismatches", "in_progress_conflicts", "business_id_conflicts",
        "invalid_state_transitions", "faults_injected", "orders_with_multiple_charges",
        "max_keys_per_business_id", "idempotency_records", "records_purged"}) {
    ASSERT_TRUE(stats.contains(field)) << field << " missing in " << stats;
    EXPECT_TRUE(stats[field].is_number_integer()) << field << " in " << stats;
  }
}

TEST_F(admin_api_test, StatsCountKeysPerBusinessId) {
  ASSERT_FALSE(api.create_order("m-1", "k-1").empty());
  ASSERT_TRUE(has_status(api.post("/v1/orders", "k-2", order_body("m-1")), 409));
  auto stats = api.stats();
  EXPECT_EQ(stats["max_keys_per_business_id"], 2);
  EXPECT_EQ(stats["business_id_conflicts"], 1);
  EXPECT_EQ(stats["idempotency_records"], 2);
}

TEST_F(admin_api_test, ConflictCountersCountExecutionsNotReplays) {
  const auto id = api.create_order("m-1", "k-1");
  for (int i = 0; i < 2; ++i) {
    ASSERT_TRUE(has_status(api.post("/v1/orders", "k-2", order_body("m-1")), 409));
    ASSERT_TRUE(has_status(api.post("/v1/orders/" + id + "/cancel", "c-1", json::object()), 200));
    ASSERT_TRUE(has_status(api.post("/v1/orders/" + id + "/cancel", "c-2", json::object()), 409));
  }
  auto stats = api.stats();
  EXPECT_EQ(stats["business_id_conflicts"], 1);
  EXPECT_EQ(stats["invalid_state_transitions"], 1);
  EXPECT_EQ(stats["replays"], 3);
}

TEST_F(admin_api_test, RequestsCountOnlyV1Requests) {
  ASSERT_TRUE(has_status(api.post("/v1/orders", "k-1", order_body("m-1")), 201));
  ASSERT_TRUE(has_status(api.get("/v1/orders/ord_missing"), 404));
  ASSERT_TRUE(has_status(http.send("GET", "/v1/no-such-route"), 404));
  ASSERT_TRUE(has_status(http.send("POST", "/v1/orders", {}, "{}"), 401));
  ASSERT_TRUE(has_status(http.send("GET", "/healthz"), 200));
  ASSERT_TRUE(has_status(http.send("GET", "/metrics"), 200));
  ASSERT_TRUE(has_status(http.send("GET", "/no-such-route"), 404));
  ASSERT_TRUE(has_status(api.admin("GET", "/_mock/faults"), 200));
  ASSERT_TRUE(has_status(api.admin("GET", "/_mock/stats"), 200));
  EXPECT_EQ(api.stats()["requests"], 4);
}

TEST_F(admin_api_test, ClockAdvanceExpiresStoredKeys) {
  ASSERT_FALSE(api.create_order("m-1", "k-1").empty());
  ASSERT_NO_FATAL_FAILURE(api.advance_clock(24 * 3600 + 1));  // past the default 24 h TTL
  // The record is gone, so the key executes again and meets the business constraint.
  auto r = api.post("/v1/orders", "k-1", order_body("m-1"));
  EXPECT_TRUE(is_problem(r, 409, "duplicate-business-id"));
  EXPECT_TRUE(replayed_header_is(r, "false"));
  EXPECT_EQ(api.stats()["records_purged"], 1);
}

TEST_F(admin_api_test, ClockRefusesANegativeAdvance) {
  auto r = api.admin("POST", "/_mock/clock", {{"advance_s", -1}});
  EXPECT_TRUE(has_status(r, 400));
}

TEST_F(admin_api_test, ResetForgetsOrdersRecordsStatsFaultsAndClock) {
  const int this_year =
      year_of(api.post("/v1/orders", "k-0", order_body("m-0")).res.json()["created_at"]);
  ASSERT_NO_FATAL_FAILURE(api.advance_clock(10.0 * 366 * 24 * 3600));
  auto before = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(before, 201));
  ASSERT_GE(year_of(before.res.json()["created_at"]), this_year + 10);  // the advance is visible
  ASSERT_NO_FATAL_FAILURE(api.set_faults(unavailable_once()));

  auto reset = api.admin("POST", "/_mock/reset");
  ASSERT_TRUE(reset.ok());
  ASSERT_EQ(reset.res.status / 100, 2) << reset.res.body;

  auto stats = api.stats();
  for (const auto& [name, value] : stats.items()) {
    EXPECT_EQ(value, 0) << name;
  }
  EXPECT_EQ(api.admin("GET", "/_mock/faults").res.json()["rules"], json::array());
  const auto id = before.res.json()["id"].get<std::string>();
  EXPECT_TRUE(is_problem(api.get("/v1/orders/" + id), 404, "not-found"));
  auto again = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(again, 201));
  EXPECT_TRUE(replayed_header_is(again, "false"));
  EXPECT_LE(year_of(again.res.json()["created_at"]), this_year + 1);  // clock offset back to 0
}

TEST_F(admin_api_test, HealthzNeedsNoAuth) {
  EXPECT_TRUE(has_status(http.send("GET", "/healthz"), 200));
}

TEST_F(admin_api_test, MetricsArePrometheusTextWithTheRequestCounter) {
  ASSERT_TRUE(has_status(api.post("/v1/orders", "k-1", order_body("m-1")), 201));
  ASSERT_TRUE(has_status(api.post("/v1/orders", "k-1", order_body("m-1")), 201));
  auto r = http.send("GET", "/metrics");
  ASSERT_TRUE(has_status(r, 200));
  EXPECT_TRUE(r.res.header("Content-Type").value_or("").starts_with("text/plain"));
  EXPECT_NE(r.res.body.find("# TYPE idem_mock_requests_total counter\n"), std::string::npos)
      << r.res.body;
  EXPECT_NE(r.res.body.find("\nidem_mock_requests_total 2\n"), std::string::npos) << r.res.body;
}

}  // namespace
}  // namespace idem::kit
