// The Orders API of contract section 4 over real sockets: create, get, lookup by business ID,
// payments and cancellation, each scoped to the principal (the bearer token).
#include <gtest/gtest.h>

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using nlohmann::json;

// The request's fields come back unchanged in the order.
void expect_order_fields(const json& order, const json& request) {
  for (const char* field :
       {"merchant_order_id", "customer_id", "currency", "amount_minor", "items"}) {
    EXPECT_EQ(order[field], request[field]) << field << " in " << order;
  }
  EXPECT_TRUE(order["id"].is_string()) << order;
}

class orders_api_test : public ::testing::Test {
 protected:
  running_server server;
  api_client api{server.port()};
  api_client other_tenant{server.port(), "tenant-b"};

  // GET /v1/orders/{id}, asserting 200.
  json get_order(const std::string& id) {
    auto r = api.get("/v1/orders/" + id);
    EXPECT_TRUE(has_status(r, 200));
    return r.ok() && r.res.status == 200 ? r.res.json() : json::object();
  }
};

TEST_F(orders_api_test, CreateAnswers201WithTheOrderAndItsLocation) {
  const auto request = order_body("m-1");
  auto r = api.post("/v1/orders", "k-1", request);
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_TRUE(r.res.header("Content-Type").value_or("").starts_with("application/json"));
  auto order = r.res.json();
  expect_order_fields(order, request);
  EXPECT_EQ(order["status"], "CREATED");
  EXPECT_EQ(r.res.header("Location").value_or(""), "/v1/orders/" + order["id"].get<std::string>());
}

TEST_F(orders_api_test, GetReturnsTheCreatedOrder) {
  const auto request = order_body("m-1");
  const auto id = api.create_order("m-1", "k-1");
  auto order = get_order(id);
  expect_order_fields(order, request);
  EXPECT_EQ(order["id"], id);
  EXPECT_EQ(order["status"], "CREATED");
  EXPECT_EQ(order["payments"], json::array());
}

TEST_F(orders_api_test, LookupByMerchantOrderIdFindsTheOrder) {
  const auto id = api.create_order("m-1", "k-1");
  ASSERT_FALSE(api.create_order("m-2", "k-2").empty());
  auto r = api.get("/v1/orders?merchant_order_id=m-1");
  ASSERT_TRUE(has_status(r, 200));
  auto data = r.res.json()["data"];
  ASSERT_TRUE(data.is_array()) << r.res.body;
  ASSERT_EQ(data.size(), 1u) << r.res.body;
  EXPECT_EQ(data[0]["id"], id);
  EXPECT_EQ(data[0]["merchant_order_id"], "m-1");
}

TEST_F(orders_api_test, LookupOfUnknownMerchantOrderIdIsEmpty) {
  auto r = api.get("/v1/orders?merchant_order_id=m-unknown");
  ASSERT_TRUE(has_status(r, 200));
  EXPECT_EQ(r.res.json(), (json{{"data", json::array()}}));
}

TEST_F(orders_api_test, ListWithoutMerchantOrderIdIs400) {
  auto r = api.get("/v1/orders");
  ASSERT_TRUE(has_status(r, 400));
  EXPECT_TRUE(r.res.header("Content-Type").value_or("").starts_with("application/problem+json"));
}

TEST_F(orders_api_test, AnotherPrincipalsOrderIsNotFound) {
  const auto id = api.create_order("m-1", "k-1");
  EXPECT_TRUE(is_problem(other_tenant.get("/v1/orders/" + id), 404, "not-found"));
}

TEST_F(orders_api_test, AnotherPrincipalsOrderIsInvisibleInLookup) {
  ASSERT_FALSE(api.create_order("m-1", "k-1").empty());
  auto r = other_tenant.get("/v1/orders?merchant_order_id=m-1");
  ASSERT_TRUE(has_status(r, 200));
  EXPECT_EQ(r.res.json()["data"], json::array());
}

TEST_F(orders_api_test, MerchantOrderIdIsUniquePerPrincipalOnly) {
  const auto mine = api.create_order("m-1", "k-1");
  auto r = other_tenant.post("/v1/orders", "k-other", order_body("m-1"));
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_NE(r.res.json()["id"], mine);
}

TEST_F(orders_api_test, LookupDecodesAPercentEncodedMerchantOrderId) {
  const std::string merchant_order_id = "m 1&x=\xc3\xa9";
  auto created = api.post("/v1/orders", "k-1", order_body(merchant_order_id));
  ASSERT_TRUE(has_status(created, 201));
  auto r = api.get("/v1/orders?merchant_order_id=m%201%26x%3D%C3%A9");
  ASSERT_TRUE(has_status(r, 200));
  auto data = r.res.json()["data"];
  ASSERT_EQ(data.size(), 1u) << r.res.body;
  EXPECT_EQ(data[0]["id"], created.res.json()["id"]);
}

TEST_F(orders_api_test, IdsOf255CharactersAreAcceptedEvenWhenMultiByte) {
  std::string id;
  for (int i = 0; i < 255; ++i) {
    id += "\xc3\xa9";  // 255 characters (e-acute), 510 bytes
  }
  auto body = order_body(id);
  body["customer_id"] = id;
  auto r = api.post("/v1/orders", "k-1", body);
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_EQ(r.res.json()["merchant_order_id"], id);
}

TEST_F(orders_api_test, AmountOf2Pow53Minus1IsAccepted) {
  constexpr std::int64_t max_amount = 9007199254740991;
  auto body = order_body("m-max");
  body["amount_minor"] = max_amount;
  body["items"] =
      json::array({{{"sku", "house"}, {"quantity", 1}, {"unit_price_minor", max_amount}}});
  auto r = api.post("/v1/orders", "k-1", body);
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_EQ(r.res.json()["amount_minor"], max_amount);
}

TEST_F(orders_api_test, PaymentIsCapturedWithItsFields) {
  const auto id = api.create_order("m-1", "k-1");
  auto r = api.post("/v1/orders/" + id + "/payments", "p-1", payment_body(1500));
  ASSERT_TRUE(has_status(r, 201));
  auto payment = r.res.json();
  EXPECT_TRUE(payment["id"].is_string()) << payment;
  EXPECT_EQ(payment["order_id"], id);
  EXPECT_EQ(payment["status"], "CAPTURED");
  EXPECT_EQ(payment["amount_minor"], 1500);
  EXPECT_EQ(payment["currency"], "EUR");
  EXPECT_EQ(api.stats()["provider_charges"], 1);
}

TEST_F(orders_api_test, PaidOrderShowsItsPayment) {
  const auto id = api.create_order("m-1", "k-1");
  auto paid = api.post("/v1/orders/" + id + "/payments", "p-1", payment_body(1500));
  ASSERT_TRUE(has_status(paid, 201));
  auto order = get_order(id);
  EXPECT_EQ(order["status"], "PAID");
  ASSERT_TRUE(order["payments"].is_array()) << order;
  ASSERT_EQ(order["payments"].size(), 1u) << order;
  EXPECT_EQ(order["payments"][0]["id"], paid.res.json()["id"]);
  EXPECT_EQ(order["payments"][0]["amount_minor"], 1500);
}

TEST_F(orders_api_test, DeclinedPaymentLeavesTheOrderCreatedWithoutPayment) {
  const auto id = api.create_order("m-1", "k-1");
  auto r = api.post("/v1/orders/" + id + "/payments", "p-1", payment_body(1500, "card_declined"));
  ASSERT_TRUE(is_problem(r, 402, "payment-declined"));
  auto order = get_order(id);
  EXPECT_EQ(order["status"], "CREATED");
  EXPECT_EQ(order["payments"], json::array());
  EXPECT_EQ(api.stats()["payments"], 0);
}

TEST_F(orders_api_test, CancelOfCreatedOrderCancelsIt) {
  const auto id = api.create_order("m-1", "k-1");
  auto r = api.post("/v1/orders/" + id + "/cancel", "c-1", {{"reason", "out of stock"}});
  ASSERT_TRUE(has_status(r, 200));
  EXPECT_EQ(r.res.json()["id"], id);
  EXPECT_EQ(r.res.json()["status"], "CANCELLED");
  EXPECT_EQ(get_order(id)["status"], "CANCELLED");
  EXPECT_EQ(api.stats()["provider_refunds"], 0);
}

TEST_F(orders_api_test, CancelWithoutReasonIsAccepted) {
  const auto id = api.create_order("m-1", "k-1");
  auto r = api.post("/v1/orders/" + id + "/cancel", "c-1", json::object());
  ASSERT_TRUE(has_status(r, 200));
  EXPECT_EQ(r.res.json()["status"], "CANCELLED");
}

TEST_F(orders_api_test, CancelOfCancelledOrderIsInvalidStateTransition) {
  const auto id = api.create_order("m-1", "k-1");
  ASSERT_TRUE(has_status(api.post("/v1/orders/" + id + "/cancel", "c-1", json::object()), 200));
  auto r = api.post("/v1/orders/" + id + "/cancel", "c-2", json::object());
  EXPECT_TRUE(is_problem(r, 409, "invalid-state-transition"));
}

TEST_F(orders_api_test, PaymentOfCancelledOrderIsInvalidStateTransition) {
  const auto id = api.create_order("m-1", "k-1");
  ASSERT_TRUE(has_status(api.post("/v1/orders/" + id + "/cancel", "c-1", json::object()), 200));
  auto r = api.post("/v1/orders/" + id + "/payments", "p-1", payment_body());
  EXPECT_TRUE(is_problem(r, 409, "invalid-state-transition"));
  EXPECT_EQ(api.stats()["provider_charges"], 0);
}

TEST_F(orders_api_test, AnotherPrincipalCannotPayOrCancelTheOrder) {
  const auto id = api.create_order("m-1", "k-1");
  EXPECT_TRUE(is_problem(other_tenant.post("/v1/orders/" + id + "/payments", "p-1", payment_body()),
                         404, "not-found"));
  EXPECT_TRUE(is_problem(other_tenant.post("/v1/orders/" + id + "/cancel", "c-1", json::object()),
                         404, "not-found"));
  EXPECT_EQ(get_order(id)["status"], "CREATED");
}

}  // namespace
}  // namespace idem::kit
