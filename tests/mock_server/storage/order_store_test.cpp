#include "mock_server/storage/order_store.hpp"

#include <gtest/gtest.h>

#include "mock_server/storage/schema.hpp"

namespace idem::mock {
namespace {

constexpr std::int64_t order_t0 = 1'795'989'600'123;  // 2026-11-29T22:00:00.123Z

order sample_order(std::string id = "ord_1", std::string merchant_order_id = "m-1",
                   std::string principal = "alice") {
  return {.id = std::move(id),
          .principal = std::move(principal),
          .merchant_order_id = std::move(merchant_order_id),
          .customer_id = "cust-7",
          .currency = "EUR",
          .amount_minor = 1500,
          .items = nlohmann::json::parse(R"([{"sku":"A","quantity":3,"unit_price_minor":500}])"),
          .status = "CREATED",
          .created_at_ms = order_t0,
          .paying_record_id = std::nullopt};
}

payment sample_payment(std::string id, std::int64_t created_at = order_t0) {
  return {.id = std::move(id),
          .order_id = "ord_1",
          .amount_minor = 1500,
          .currency = "EUR",
          .status = "CAPTURED",
          .provider_charge_id = "ch_1",
          .created_at_ms = created_at};
}

class order_store_test : public ::testing::Test {
 protected:
  void SetUp() override { create_schema(db); }
  database db{":memory:"};
  order_store orders{db};
};

TEST_F(order_store_test, InsertedOrderIsFoundByIdAndByMerchantOrderId) {
  ASSERT_TRUE(orders.insert_order(sample_order()));
  for (const auto& found :
       {orders.find_order("alice", "ord_1"), orders.find_by_merchant_order_id("alice", "m-1")}) {
    ASSERT_TRUE(found);
    EXPECT_EQ(found->id, "ord_1");
    EXPECT_EQ(found->principal, "alice");
    EXPECT_EQ(found->merchant_order_id, "m-1");
    EXPECT_EQ(found->customer_id, "cust-7");
    EXPECT_EQ(found->currency, "EUR");
    EXPECT_EQ(found->amount_minor, 1500);
    EXPECT_EQ(found->items, sample_order().items);
    EXPECT_EQ(found->status, "CREATED");
    EXPECT_EQ(found->created_at_ms, order_t0);
  }
}

TEST_F(order_store_test, OrdersAreInvisibleToOtherPrincipals) {
  ASSERT_TRUE(orders.insert_order(sample_order()));
  EXPECT_FALSE(orders.find_order("bob", "ord_1"));
  EXPECT_FALSE(orders.find_by_merchant_order_id("bob", "m-1"));
  EXPECT_FALSE(orders.find_order("alice", "ord_unknown"));
}

TEST_F(order_store_test, SecondOrderWithTheSameMerchantOrderIdIsRefused) {
  ASSERT_TRUE(orders.insert_order(sample_order("ord_1", "m-1")));
  auto duplicate = sample_order("ord_2", "m-1");
  duplicate.amount_minor = 9;
  EXPECT_FALSE(orders.insert_order(duplicate));

  EXPECT_EQ(orders.count_orders(), 1);
  EXPECT_EQ(orders.find_by_merchant_order_id("alice", "m-1")->id, "ord_1");
  EXPECT_FALSE(orders.find_order("alice", "ord_2"));
}

TEST_F(order_store_test, SameMerchantOrderIdUnderAnotherPrincipalIsAllowed) {
  ASSERT_TRUE(orders.insert_order(sample_order("ord_1", "m-1", "alice")));
  EXPECT_TRUE(orders.insert_order(sample_order("ord_2", "m-1", "bob")));
  EXPECT_EQ(orders.find_by_merchant_order_id("bob", "m-1")->id, "ord_2");
}

TEST_F(order_store_test, ReusedOrderIdThrowsInsteadOfPassingForADuplicate) {
  ASSERT_TRUE(orders.insert_order(sample_order("ord_1", "m-1")));
  EXPECT_THROW(orders.insert_order(sample_order("ord_1", "m-2")), sqlite_error);
}

TEST_F(order_store_test, OrderInsertedInATransactionThatRollsBackIsGone) {
  {
    transaction txn{db};
    ASSERT_TRUE(orders.insert_order(sample_order()));
  }
  EXPECT_EQ(orders.count_orders(), 0);
  EXPECT_TRUE(orders.insert_order(sample_order()));
}

TEST_F(order_store_test, ConditionalTransitionHappensOnlyOnce) {
  ASSERT_TRUE(orders.insert_order(sample_order()));
  EXPECT_TRUE(orders.transition("ord_1", "CREATED", "PAID"));
  EXPECT_FALSE(orders.transition("ord_1", "CREATED", "PAID"));
  EXPECT_EQ(orders.find_order("alice", "ord_1")->status, "PAID");
}

TEST_F(order_store_test, TransitionFromAStateTheOrderIsNotInChangesNothing) {
  ASSERT_TRUE(orders.insert_order(sample_order()));
  EXPECT_FALSE(orders.transition("ord_1", "PAID", "CANCELLED"));
  EXPECT_EQ(orders.find_order("alice", "ord_1")->status, "CREATED");
  EXPECT_TRUE(orders.transition("ord_1", "CREATED", "CANCELLED"));
  EXPECT_FALSE(orders.transition("ord_1", "CREATED", "PAID"));
  EXPECT_EQ(orders.find_order("alice", "ord_1")->status, "CANCELLED");
}

TEST_F(order_store_test, TransitionOfAnUnknownOrderFails) {
  EXPECT_FALSE(orders.transition("ord_unknown", "CREATED", "PAID"));
}

TEST_F(order_store_test, PaymentsAreListedOldestFirst) {
  ASSERT_TRUE(orders.insert_order(sample_order()));
  orders.insert_payment(sample_payment("pay_late", order_t0 + 10));
  orders.insert_payment(sample_payment("pay_b", order_t0));
  orders.insert_payment(sample_payment("pay_a", order_t0));  // same instant: insertion order
  auto list = orders.payments_of("ord_1");
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].id, "pay_b");
  EXPECT_EQ(list[1].id, "pay_a");
  EXPECT_EQ(list[2].id, "pay_late");
  EXPECT_EQ(list[2].order_id, "ord_1");
  EXPECT_EQ(list[2].amount_minor, 1500);
  EXPECT_EQ(list[2].currency, "EUR");
  EXPECT_EQ(list[2].status, "CAPTURED");
  EXPECT_EQ(list[2].provider_charge_id, "ch_1");
  EXPECT_EQ(list[2].created_at_ms, order_t0 + 10);
  EXPECT_TRUE(orders.payments_of("ord_other").empty());
}

TEST_F(order_store_test, PaymentForAnUnknownOrderIsRefused) {
  EXPECT_THROW(orders.insert_payment(sample_payment("pay_1")), sqlite_error);
  EXPECT_EQ(orders.count_payments(), 0);
}

TEST_F(order_store_test, CapturedPaymentIsMarkedRefundedOnce) {
  ASSERT_TRUE(orders.insert_order(sample_order()));
  orders.insert_payment(sample_payment("pay_1"));
  EXPECT_TRUE(orders.mark_refunded("pay_1"));
  EXPECT_FALSE(orders.mark_refunded("pay_1"));
  EXPECT_FALSE(orders.mark_refunded("pay_unknown"));
  EXPECT_EQ(orders.payments_of("ord_1")[0].status, "REFUNDED");
}

TEST_F(order_store_test, CountsOrdersAndPayments) {
  EXPECT_EQ(orders.count_orders(), 0);
  EXPECT_EQ(orders.count_payments(), 0);
  ASSERT_TRUE(orders.insert_order(sample_order("ord_1", "m-1")));
  ASSERT_TRUE(orders.insert_order(sample_order("ord_2", "m-2")));
  orders.insert_payment(sample_payment("pay_1"));
  EXPECT_EQ(orders.count_orders(), 2);
  EXPECT_EQ(orders.count_payments(), 1);
}

TEST_F(order_store_test, MaxKeysPerBusinessIdCountsDistinctKeysPerMerchantOrderId) {
  EXPECT_EQ(orders.max_keys_per_business_id(), 0);
  orders.note_key_for_business_id("alice", "m-1", "k-1");
  orders.note_key_for_business_id("alice", "m-1", "k-1");  // a retry: same key, counted once
  EXPECT_EQ(orders.max_keys_per_business_id(), 1);
  orders.note_key_for_business_id("alice", "m-2", "k-2");
  orders.note_key_for_business_id("bob", "m-1", "k-3");  // another principal's m-1
  EXPECT_EQ(orders.max_keys_per_business_id(), 1);
  orders.note_key_for_business_id("alice", "m-1", "k-4");
  EXPECT_EQ(orders.max_keys_per_business_id(), 2);
}

TEST(order_json, OrderHasTheApiFieldsItsPaymentsAndAnRfc3339CreatedAt) {
  auto o = sample_order();
  auto j = to_json(o, {sample_payment("pay_1", order_t0 + 1)});
  EXPECT_EQ(j["id"], "ord_1");
  EXPECT_EQ(j["merchant_order_id"], "m-1");
  EXPECT_EQ(j["customer_id"], "cust-7");
  EXPECT_EQ(j["currency"], "EUR");
  EXPECT_EQ(j["amount_minor"], 1500);
  EXPECT_EQ(j["items"], o.items);
  EXPECT_EQ(j["status"], "CREATED");
  EXPECT_EQ(j["created_at"], "2026-11-29T22:00:00.123Z");
  ASSERT_EQ(j["payments"].size(), 1u);
  EXPECT_EQ(j["payments"][0]["id"], "pay_1");
  EXPECT_FALSE(j.contains("principal"));  // tenants are not told about each other
}

TEST(order_json, OrderWithoutPaymentsHasAnEmptyPaymentsArray) {
  auto j = to_json(sample_order(), {});
  ASSERT_TRUE(j["payments"].is_array());
  EXPECT_TRUE(j["payments"].empty());
}

TEST(order_json, PaymentHasExactlyTheApiFields) {
  auto j = to_json(sample_payment("pay_1"));
  EXPECT_EQ(j, nlohmann::json::parse(R"({"id":"pay_1","order_id":"ord_1","status":"CAPTURED",
      "amount_minor":1500,"currency":"EUR","created_at":"2026-11-29T22:00:00.123Z"})"));
}

TEST(order_json, CreatedAtPadsEveryFieldAndKeepsWholeMilliseconds) {
  auto at = [](std::int64_t ms) {
    auto o = sample_order();
    o.created_at_ms = ms;
    return to_json(o, {})["created_at"].get<std::string>();
  };
  EXPECT_EQ(at(0), "1970-01-01T00:00:00.000Z");
  EXPECT_EQ(at(5), "1970-01-01T00:00:00.005Z");
  EXPECT_EQ(at(951'868'799'999), "2000-02-29T23:59:59.999Z");  // leap day
  EXPECT_EQ(at(-1), "1969-12-31T23:59:59.999Z");               // floor, not truncation
}

}  // namespace
}  // namespace idem::mock
