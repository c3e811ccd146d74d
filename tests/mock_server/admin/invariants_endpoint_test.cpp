// GET /_mock/invariants: the exactly-once invariants over the whole database, with the
// offenders named, for the admin only.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "mock_server/storage/sqlite.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_db_file.hpp"

namespace idem::kit {
namespace {

using nlohmann::json;

const json* check_named(const json& answer, const std::string& name) {
  for (const auto& c : answer["checks"])
    if (c["name"] == name) return &c;
  ADD_FAILURE() << "no check " << name << " in " << answer.dump();
  return nullptr;
}

class invariants_endpoint_test : public ::testing::Test {
 protected:
  running_server server;
  api_client api{server.port()};
};

TEST_F(invariants_endpoint_test, AnEmptyAndACleanDatabaseHoldEveryInvariant) {
  auto empty = api.admin("GET", "/_mock/invariants");
  ASSERT_EQ(empty.res.status, 200);
  EXPECT_EQ(empty.res.json()["ok"], true) << empty.res.body;

  const auto id = api.create_order("m-1", "k-1");
  ASSERT_EQ(api.post("/v1/orders/" + id + "/payments", "p-1", payment_body()).res.status, 201);
  ASSERT_EQ(api.post("/v1/orders/" + id + "/payments", "p-1", payment_body()).res.status, 201);
  const auto answer = api.admin("GET", "/_mock/invariants").res.json();
  EXPECT_EQ(answer["ok"], true) << answer.dump();
  ASSERT_EQ(answer["checks"].size(), 3U);
  for (const auto& c : answer["checks"]) {
    EXPECT_EQ(c["ok"], true) << c.dump();
    EXPECT_EQ(c["violations"], 0);
    EXPECT_EQ(c["examples"], json::array());
  }
}

TEST_F(invariants_endpoint_test, TwoKeysForOneMerchantOrderIdAreNamed) {
  (void)api.create_order("m-1", "k-1");
  ASSERT_EQ(api.post("/v1/orders", "k-2", order_body("m-1")).res.status, 409);
  (void)api.create_order("m-2", "k-3");
  const auto answer = api.admin("GET", "/_mock/invariants").res.json();
  EXPECT_EQ(answer["ok"], false);
  const json* keys = check_named(answer, "one_key_per_business_id");
  ASSERT_NE(keys, nullptr);
  EXPECT_EQ((*keys)["ok"], false);
  EXPECT_EQ((*keys)["violations"], 1);
  EXPECT_EQ((*keys)["examples"],
            json::array({"merchant_order_id m-1: 2 idempotency keys tried to create it"}));
  // Neither the keys nor the tokens are in the answer.
  const auto text = answer.dump();
  EXPECT_EQ(text.find("k-1"), std::string::npos) << text;
  EXPECT_EQ(text.find("tenant-a"), std::string::npos) << text;
  EXPECT_EQ(check_named(answer, "no_order_created_twice")->at("ok"), true);
  EXPECT_EQ(check_named(answer, "no_order_charged_twice")->at("ok"), true);
}

TEST(InvariantsEndpoint, ASecondChargeNotRefundedIsNamedWithItsOrder) {
  temp_db_file db;
  auto options = test_server_options();
  options.db_path = db.path();
  running_server server{options};
  api_client api{server.port()};
  const auto id = api.create_order("m-1", "k-1");
  ASSERT_EQ(api.post("/v1/orders/" + id + "/payments", "p-1", payment_body()).res.status, 201);
  // What no request can do: a second captured charge in the provider's ledger, written
  // beside the server through a connection of our own.
  {
    mock::database side{db.path()};
    side.prepare(
            "INSERT INTO provider_charges (provider_key, charge_id, order_id, amount_minor,"
            " currency, captured, refunded, created_at)"
            " VALUES ('planted', 'ch-planted', ?1, 1500, 'EUR', 1, 0, 0)")
        .bind(1, id)
        .run();
  }
  const auto answer = api.admin("GET", "/_mock/invariants").res.json();
  EXPECT_EQ(answer["ok"], false);
  const json* charged = check_named(answer, "no_order_charged_twice");
  ASSERT_NE(charged, nullptr);
  EXPECT_EQ((*charged)["violations"], 1);
  EXPECT_EQ((*charged)["examples"],
            json::array({"order " + id +
                         " (merchant_order_id m-1): 2 charges not refunded, 1 captured payments"}));
  EXPECT_EQ(api.stats()["orders_with_multiple_charges"], 1);
}

TEST_F(invariants_endpoint_test, NeedsTheAdminToken) {
  http_client http{server.port()};
  EXPECT_TRUE(is_problem(http.send("GET", "/_mock/invariants"), 401, "unauthenticated"));
  EXPECT_TRUE(
      is_problem(http.send("GET", "/_mock/invariants", {{"Authorization", "Bearer tenant-a"}}), 403,
                 "forbidden"));
  EXPECT_TRUE(is_problem(http.send("POST", "/_mock/invariants",
                                   {{"Authorization", std::string("Bearer ") + admin_token}}),
                         405, "method-not-allowed"));
}

}  // namespace
}  // namespace idem::kit
