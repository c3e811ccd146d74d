// Two keys paying one order (contract section 3: "the state check, the provider charge and the
// commit are serialized per order, so at most one charge happens"), when the first payment's
// outcome is unresolved: its provider call timed out (504) or its executor crashed. The second
// key must neither charge beside it nor wait for the first client to come back.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

class SecondKeyPayment : public ::testing::Test {
 protected:
  running_server server_;
  api_client api_{server_.port()};
  std::string order_id_ = api_.create_order("m-1", "k-create");
  std::string payments_ = orders + "/" + order_id_ + "/payments";

  void expect_one_charge_kept() {
    EXPECT_EQ(stat(api_, "provider_charges"), 1);
    EXPECT_EQ(stat(api_, "payments"), 1);
    EXPECT_EQ(stat(api_, "orders_with_multiple_charges"), 0);
    EXPECT_EQ(api_.get(orders + "/" + order_id_).res.json().at("status"), "PAID");
  }
};

// QA's reproduction: p1 504 (charged, unresolved), then p2 was charged too.
TEST_F(SecondKeyPayment, SecondKeyAfterAProviderTimeoutSettlesTheFirstChargeInsteadOfCharging) {
  api_.set_faults(only(on_pay("provider_timeout", {{"times", 1}})));
  auto first = api_.post(payments_, "p1", payment_body());
  ASSERT_TRUE(has_status(first, 504));

  auto second = api_.post(payments_, "p2", payment_body());
  EXPECT_TRUE(is_problem(second, 409, "invalid-state-transition"));
  expect_one_charge_kept();

  // p1's client comes back: its charge was settled as a success, replayed.
  auto retry = api_.post(payments_, "p1", payment_body());
  ASSERT_TRUE(has_status(retry, 201));
  EXPECT_TRUE(replayed_header_is(retry, "true"));
  EXPECT_EQ(retry.res.json().at("status"), "CAPTURED");
  expect_one_charge_kept();
  EXPECT_EQ(stat(api_, "provider_refunds"), 0);
}

TEST_F(SecondKeyPayment, SecondKeyWhileTheFirstExecutorHoldsItsLeaseIsInProgressAndChargesNothing) {
  api_.set_faults(only(on_pay("crash_during_processing", {{"times", 1}})));
  auto crashed = api_.post(payments_, "p1", payment_body());
  EXPECT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();

  auto second = api_.post(payments_, "p2", payment_body());
  EXPECT_TRUE(is_problem(second, 409, "idempotency-request-in-progress"));
  EXPECT_TRUE(second.res.header("Retry-After").has_value());
  EXPECT_TRUE(has_no_replayed_header(second));
  EXPECT_EQ(stat(api_, "provider_charges"), 1);  // p1's, made before its executor "crashed"
  EXPECT_EQ(stat(api_, "payments"), 0);

  // Once p1's lease is over, p2's retry settles p1 (its charge stands) and is refused.
  api_.advance_clock(31);
  auto retry = api_.post(payments_, "p2", payment_body());
  EXPECT_TRUE(is_problem(retry, 409, "invalid-state-transition"));
  expect_one_charge_kept();
  auto p1 = api_.post(payments_, "p1", payment_body());
  EXPECT_TRUE(has_status(p1, 201));
  EXPECT_TRUE(replayed_header_is(p1, "true"));
}

TEST_F(SecondKeyPayment, FirstChargeDeclinedAfterATimeoutLetsTheSecondKeyPay) {
  api_.set_faults(only(on_pay("provider_timeout", {{"times", 1}})));
  ASSERT_TRUE(has_status(api_.post(payments_, "p1", payment_body(1500, "card_declined")), 504));

  auto second = api_.post(payments_, "p2", payment_body());
  ASSERT_TRUE(has_status(second, 201));
  EXPECT_EQ(second.res.json().at("status"), "CAPTURED");
  expect_one_charge_kept();

  auto p1 = api_.post(payments_, "p1", payment_body(1500, "card_declined"));
  EXPECT_TRUE(is_problem(p1, 402, "payment-declined"));
  EXPECT_TRUE(replayed_header_is(p1, "true"));
}

TEST_F(SecondKeyPayment, CancelAfterAPaymentTimedOutRefundsItsCharge) {
  api_.set_faults(only(on_pay("provider_timeout", {{"times", 1}})));
  ASSERT_TRUE(has_status(api_.post(payments_, "p1", payment_body()), 504));

  // The cancel first settles p1 (the order is PAID by it), then refunds and cancels.
  auto cancel = api_.post(orders + "/" + order_id_ + "/cancel", "c1", {{"reason", "changed mind"}});
  ASSERT_TRUE(has_status(cancel, 200));
  EXPECT_EQ(cancel.res.json().at("status"), "CANCELLED");
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "provider_refunds"), 1);
  EXPECT_EQ(stat(api_, "orders_with_multiple_charges"), 0);
}

}  // namespace
}  // namespace idem::kit
