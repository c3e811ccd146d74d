#include "mock_server/storage/payment_provider.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "mock_server/storage/schema.hpp"

namespace idem::mock {
namespace {

constexpr std::int64_t provider_t0 = 1'795'989'600'000;

class payment_provider_test : public ::testing::Test {
 protected:
  void SetUp() override { create_schema(db); }

  provider_charge charge(std::string_view key, std::string_view order_id = "ord_1",
                         std::string_view method = "card") {
    return provider.charge(key, order_id, 1500, "EUR", method, provider_t0);
  }

  database db{":memory:"};
  payment_provider provider{db};
};

TEST_F(payment_provider_test, ChargeCapturesTheAmountAndIsCounted) {
  auto c = charge("pk-1");
  EXPECT_EQ(c.provider_key, "pk-1");
  EXPECT_EQ(c.charge_id.rfind("ch_", 0), 0u) << c.charge_id;
  EXPECT_EQ(c.order_id, "ord_1");
  EXPECT_EQ(c.amount_minor, 1500);
  EXPECT_EQ(c.currency, "EUR");
  EXPECT_TRUE(c.captured);
  EXPECT_FALSE(c.refunded);
  EXPECT_EQ(provider.captured_charges(), 1);
}

TEST_F(payment_provider_test, SecondChargeWithTheSameKeyReturnsTheFirstResultUnchanged) {
  auto first = charge("pk-1");
  auto again = provider.charge("pk-1", "ord_other", 1, "USD", "card_declined", provider_t0 + 5);
  EXPECT_EQ(again.charge_id, first.charge_id);
  EXPECT_EQ(again.order_id, "ord_1");
  EXPECT_EQ(again.amount_minor, 1500);
  EXPECT_EQ(again.currency, "EUR");
  EXPECT_TRUE(again.captured);
  EXPECT_EQ(provider.captured_charges(), 1);
}

TEST_F(payment_provider_test, DifferentKeysAreDifferentCharges) {
  auto a = charge("pk-1", "ord_1");
  auto b = charge("pk-2", "ord_2");
  EXPECT_NE(a.charge_id, b.charge_id);
  EXPECT_EQ(provider.captured_charges(), 2);
  EXPECT_EQ(provider.orders_with_multiple_charges(), 0);
}

TEST_F(payment_provider_test, DeclinedChargeIsNotCountedAndStaysDeclinedForItsKey) {
  auto declined = charge("pk-1", "ord_1", "card_declined");
  EXPECT_FALSE(declined.captured);
  EXPECT_EQ(provider.captured_charges(), 0);

  auto retried = charge("pk-1", "ord_1", "card");  // same key: the first answer stands
  EXPECT_FALSE(retried.captured);
  EXPECT_EQ(retried.charge_id, declined.charge_id);
  EXPECT_EQ(provider.captured_charges(), 0);
}

TEST_F(payment_provider_test, FindReportsWhatTheProviderKnowsWithoutSideEffects) {
  EXPECT_FALSE(provider.find("pk-1"));
  EXPECT_EQ(provider.captured_charges(), 0);
  auto c = charge("pk-1");
  auto found = provider.find("pk-1");
  ASSERT_TRUE(found);
  EXPECT_EQ(found->charge_id, c.charge_id);
  EXPECT_TRUE(found->captured);
}

TEST_F(payment_provider_test, ChargeIsRefusedInsideTheCallersTransaction) {
  // Joining the server's transaction would let its rollback undo a charge that happened.
  transaction txn{db};
  EXPECT_THROW(charge("pk-1"), std::logic_error);
  EXPECT_THROW(provider.refund("rk-1", "ch_1", provider_t0), std::logic_error);
}

TEST_F(payment_provider_test, ChargeOutlivesAServerTransactionThatRollsBackAfterIt) {
  charge("pk-1");
  {
    transaction txn{db};
    db.exec("INSERT INTO counters (name, value) VALUES ('payments', 1)");
  }  // the server's work rolls back; the provider's charge is its own
  EXPECT_TRUE(provider.find("pk-1"));
  EXPECT_EQ(provider.captured_charges(), 1);
}

TEST_F(payment_provider_test, RefundRefundsACapturedChargeOncePerKey) {
  auto c = charge("pk-1");
  EXPECT_TRUE(provider.refund("rk-1", c.charge_id, provider_t0));
  EXPECT_TRUE(provider.find("pk-1")->refunded);
  EXPECT_EQ(provider.refunds(), 1);

  EXPECT_TRUE(provider.refund("rk-1", c.charge_id, provider_t0 + 1));  // a retry of the same refund
  EXPECT_EQ(provider.refunds(), 1);
  EXPECT_EQ(provider.captured_charges(), 1);  // refunded charges still happened
  EXPECT_FALSE(db.in_transaction());
}

TEST_F(payment_provider_test, RefundOfARefundedChargeUnderAnotherKeyDoesNothing) {
  auto c = charge("pk-1");
  ASSERT_TRUE(provider.refund("rk-1", c.charge_id, provider_t0));
  EXPECT_TRUE(provider.refund("rk-2", c.charge_id, provider_t0));
  EXPECT_EQ(provider.refunds(), 1);
}

TEST_F(payment_provider_test, DeclinedOrUnknownChargeCannotBeRefunded) {
  auto declined = charge("pk-1", "ord_1", "card_declined");
  EXPECT_FALSE(provider.refund("rk-1", declined.charge_id, provider_t0));
  EXPECT_FALSE(provider.refund("rk-2", "ch_unknown", provider_t0));
  EXPECT_EQ(provider.refunds(), 0);
}

TEST_F(payment_provider_test, RefundKeyIsSpentOnItsFirstCharge) {
  auto a = charge("pk-1", "ord_1");
  auto b = charge("pk-2", "ord_2");
  ASSERT_TRUE(provider.refund("rk-1", a.charge_id, provider_t0));
  EXPECT_FALSE(provider.refund("rk-1", b.charge_id, provider_t0));
  EXPECT_FALSE(provider.find("pk-2")->refunded);
  EXPECT_EQ(provider.refunds(), 1);
}

TEST_F(payment_provider_test, OrdersWithMultipleChargesCountsOnlyMoneyStillTaken) {
  auto first = charge("pk-1", "ord_1");
  charge("pk-2", "ord_1");
  EXPECT_EQ(provider.orders_with_multiple_charges(), 1);

  charge("pk-3", "ord_2");
  charge("pk-4", "ord_2", "card_declined");  // a decline is not a charge
  EXPECT_EQ(provider.orders_with_multiple_charges(), 1);

  ASSERT_TRUE(provider.refund("rk-1", first.charge_id, provider_t0));  // the duplicate was repaired
  EXPECT_EQ(provider.orders_with_multiple_charges(), 0);
}

}  // namespace
}  // namespace idem::mock
