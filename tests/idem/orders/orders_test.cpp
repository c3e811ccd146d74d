// The orders API's typed intents: the create body is always the bytes nlohmann::json would have
// written for the same order (servers fingerprint the body; a resumed intent sends it again).
#include "idem/orders.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <string>

namespace {

using idem::orders::order_item;
using idem::orders::order_request;

order_request sample() {
  return {.merchant_order_id = "shop-7-order-000123",
          .customer_id = "cust_42",
          .currency = "EUR",
          .amount_minor = 2500,
          .items = {{.sku = "sku-1", .quantity = 2, .unit_price_minor = 1000},
                    {.sku = "sku-2", .quantity = 1, .unit_price_minor = 500}}};
}

void expect_same_bytes(const order_request& req) {
  EXPECT_EQ(idem::orders::order_body(req), idem::orders::order_payload(req).dump());
  EXPECT_EQ(idem::orders::create(req).body(), idem::orders::order_payload(req).dump());
}

TEST(OrderBody, IsWhatTheJsonTreeDumps) {
  expect_same_bytes(sample());
}

// The body lives as long as its intent, and the store keeps finished intents too: it holds its
// bytes, not the room reserved for the widest numbers (about 75 bytes more for a typical order).
TEST(OrderBody, HoldsItsBytesNotTheRoomReservedForTheWidestNumbers) {
  auto extreme = sample();
  extreme.amount_minor = std::numeric_limits<std::int64_t>::min();
  extreme.items.push_back(
      {.sku = "", .quantity = std::numeric_limits<std::int64_t>::max(), .unit_price_minor = -7});
  auto no_items = sample();
  no_items.items.clear();
  for (const auto& req : {sample(), order_request{}, extreme, no_items}) {
    const std::string body = idem::orders::order_body(req);
    EXPECT_LE(body.capacity(), body.size() + 16) << body;
    const auto created = idem::orders::create(req);
    EXPECT_LE(created.body().capacity(), created.body().size() + 16) << created.body();
  }
}

TEST(OrderBody, ALargeOrderIsWhatTheJsonTreeDumpsToo) {
  // Beyond what is written on the stack first (about 1 KiB): counted, then written to a string
  // of its length.
  auto req = sample();
  req.merchant_order_id = std::string(300, 'm');
  for (int i = 0; i < 200; ++i) {
    req.items.push_back({.sku = "sku-" + std::to_string(i), .quantity = i, .unit_price_minor = -i});
  }
  expect_same_bytes(req);
  const std::string body = idem::orders::order_body(req);
  EXPECT_GT(body.size(), 1024u);
  EXPECT_LE(body.capacity(), body.size() + 16);
  for (std::size_t items = 1; items < 40; ++items) {  // every length around the stack's end
    auto near = sample();
    near.items.assign(items, {.sku = "sku-near-the-end", .quantity = 1, .unit_price_minor = 1});
    expect_same_bytes(near);
  }
}

TEST(OrderBody, NoItemsIsAnEmptyArray) {
  auto req = sample();
  req.items.clear();
  expect_same_bytes(req);
  EXPECT_NE(idem::orders::order_body(req).find(R"("items":[])"), std::string::npos);
}

TEST(OrderBody, ExtremeAndNegativeNumbers) {
  auto req = sample();
  req.amount_minor = std::numeric_limits<std::int64_t>::min();
  req.items[0].quantity = std::numeric_limits<std::int64_t>::max();
  req.items[1].unit_price_minor = -1;
  expect_same_bytes(req);
}

TEST(OrderBody, EmptyStrings) {
  expect_same_bytes(order_request{});
}

TEST(OrderBody, StringsThatNeedEscapingOrAreNotAscii) {
  // Each field in turn: quotes, backslash, controls, DEL, UTF-8 (two, three, four bytes).
  for (const std::string& odd : std::initializer_list<std::string>{
           "a\"b", "back\\slash", "tab\tnew\nline", std::string("nul\0x", 5), "del\x7f",
           "caf\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x9b\x92"}) {
    for (int field = 0; field < 4; ++field) {
      auto req = sample();
      std::string* target[] = {&req.merchant_order_id, &req.customer_id, &req.currency,
                               &req.items[1].sku};
      *target[field] = "x" + odd + "y";
      SCOPED_TRACE(testing::Message() << "field " << field);
      expect_same_bytes(req);
    }
  }
}

TEST(OrderBody, InvalidUtf8IsRefusedAsTheJsonTreeRefusesIt) {
  auto req = sample();
  req.customer_id = "bad\xff";
  EXPECT_THROW((void)idem::orders::order_body(req), nlohmann::json::exception);
  EXPECT_THROW((void)idem::orders::create(req), nlohmann::json::exception);
}

TEST(OrderCreate, PathAndLookupOfTheCallersRoute) {
  const auto req = sample();
  const auto lookup = idem::orders::order_created_lookup(req.merchant_order_id);
  const auto own = idem::orders::create(req, "/api/checkout", lookup);
  EXPECT_EQ(own.op().method, "POST");
  EXPECT_EQ(own.op().path, "/api/checkout");
  EXPECT_EQ(own.lookup().business_id, req.merchant_order_id);
  EXPECT_EQ(own.payload(), idem::orders::order_payload(req));
  const auto standard = idem::orders::create(req);
  EXPECT_EQ(standard.op().path, "/v1/orders");
  EXPECT_EQ(standard.body(), own.body());
  EXPECT_NE(standard.key(), own.key());  // every create is a new intent
}

// Orders share one lookup but for the business ID: each one's is the whole lookup of its own
// merchant order id, as order_created_lookup makes it, and stays so for every copy.
TEST(OrderCreate, EachOrderHasTheWholeLookupOfItsOwnMerchantOrderId) {
  auto first_req = sample();
  auto second_req = sample();
  second_req.merchant_order_id = "a-merchant-order-id-longer-than-sso";
  const auto first = idem::orders::create(first_req);
  const auto second = idem::orders::create(second_req);
  const auto copy = first;
  EXPECT_EQ(second.lookup(), idem::orders::order_created_lookup(second_req.merchant_order_id));
  EXPECT_EQ(first.lookup(), idem::orders::order_created_lookup(first_req.merchant_order_id));
  EXPECT_EQ(&copy.lookup(), &first.lookup());  // made once per intent
  EXPECT_TRUE(first.lookup().enabled());
}

TEST(OrderCreate, ItsBusinessIdIsTheMerchantOrderIdBeforeAndAfterTheLookupIsMade) {
  auto req = sample();
  req.merchant_order_id = "m-business-id-of-this-order";
  const auto order = idem::orders::create(req);
  EXPECT_EQ(order.business_id(), "m-business-id-of-this-order");
  EXPECT_EQ(order.lookup().business_id, order.business_id());
  EXPECT_EQ(order.business_id(), "m-business-id-of-this-order");
  const auto plain = idem::intent::create({.path = "/x"}, nlohmann::json::object());
  EXPECT_EQ(plain.business_id(), "");
}

}  // namespace

namespace {

TEST(CreatedOrderId, TheIdOfASucceededCreateFromItsBodyAndNothingOtherwise) {
  using idem::outcome;
  using idem::outcome_fields;
  using idem::outcome_kind;
  const outcome created(outcome_fields{
      .kind = outcome_kind::succeeded, .status = 201, .body = R"({"id":"ord_1","x":2})"});
  EXPECT_EQ(idem::orders::created_order_id(created), "ord_1");
  // The order the lookup found is the same resource: its id is the same field.
  const outcome found(outcome_fields{.kind = outcome_kind::succeeded,
                                     .status = 200,
                                     .body = R"({"id":"ord_2"})",
                                     .recovered_by_lookup = true});
  EXPECT_EQ(idem::orders::created_order_id(found), "ord_2");
  const outcome rejected(
      outcome_fields{.kind = outcome_kind::rejected, .status = 409, .body = R"({"id":"ord_3"})"});
  EXPECT_EQ(idem::orders::created_order_id(rejected), std::nullopt);
  const outcome no_id(outcome_fields{.kind = outcome_kind::succeeded, .status = 201, .body = "{}"});
  EXPECT_EQ(idem::orders::created_order_id(no_id), std::nullopt);
}

}  // namespace
