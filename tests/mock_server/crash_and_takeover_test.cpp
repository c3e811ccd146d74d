// An executor that dies mid-request (crash fault, provider timeout) leaves its record PROCESSING:
// duplicates wait while the lease runs, then one takes over, asks the provider what happened by
// the stable provider key, and finishes the work exactly once (contract section 3).
#include <gtest/gtest.h>

#include <future>
#include <string>

#include "tests/support/api_client.hpp"
#include "tests/support/integration.hpp"
#include "tests/support/running_server.hpp"

namespace {

using idem::testing::api_client;
using idem::testing::eventually;
using idem::testing::order_body;
using idem::testing::payment_body;
using idem::testing::problem_name;
using idem::testing::running_server;
using idem::testing::stat;
using json = nlohmann::json;

const std::string orders = "/v1/orders";

std::string payments_of(const std::string& id) {
  return orders + "/" + id + "/payments";
}
std::string cancel_of(const std::string& id) {
  return orders + "/" + id + "/cancel";
}

// One rule on POST `route` that fires once; `extra` adds parameters such as delay_ms.
json fault_once(const std::string& route, const std::string& fault, json extra = json::object()) {
  json rule = {{"match", {{"method", "POST"}, {"route", route}}}, {"fault", fault}, {"times", 1}};
  rule.update(extra);
  return {{"rules", json::array({rule})}};
}

idem::mock::server_options with_lease(std::chrono::seconds lease) {
  auto options = idem::testing::test_server_options();
  options.lease = lease;
  return options;
}

class CrashAndTakeover : public ::testing::Test {
 protected:
  running_server server_{with_lease(std::chrono::seconds(30))};
  api_client api_{server_.port()};

  // Creates an order and crashes the first payment of it under `key`.
  std::string order_with_crashed_payment(const std::string& key) {
    auto id = api_.create_order("m-1", "k-create");
    api_.set_faults(fault_once("/v1/orders/{id}/payments", "crash_during_processing"));
    auto crashed = api_.post(payments_of(id), key, payment_body());
    EXPECT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();
    return id;
  }
};

TEST_F(CrashAndTakeover, CrashedRequestSeesAResetAfterTheProviderCharged) {
  order_with_crashed_payment("k-pay");
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 0);
  EXPECT_EQ(stat(api_, "idempotency_records"), 2);  // the order's and the PROCESSING payment's
}

TEST_F(CrashAndTakeover, RetryWithinTheLeaseIsInProgressWithRetryAfter) {
  auto id = order_with_crashed_payment("k-pay");
  api_.advance_clock(10);  // 20 s of the lease left

  auto retry = api_.post(payments_of(id), "k-pay", payment_body());
  ASSERT_TRUE(retry.ok()) << retry.ec.message();
  EXPECT_EQ(retry.res.status, 409) << retry.res.body;
  EXPECT_EQ(problem_name(retry.res), "idempotency-request-in-progress");
  EXPECT_EQ(retry.res.header("Retry-After"), "5");  // the time left, clamped to 1-5 s
  EXPECT_EQ(retry.res.header("Idempotent-Replayed"), std::nullopt);
  EXPECT_EQ(stat(api_, "payments"), 0);
  EXPECT_EQ(stat(api_, "in_progress_conflicts"), 1);
}

TEST_F(CrashAndTakeover, RetryAfterTheLeaseTakesOverAndChargesExactlyOnce) {
  auto id = order_with_crashed_payment("k-pay");
  api_.advance_clock(31);

  auto retry = api_.post(payments_of(id), "k-pay", payment_body());
  ASSERT_TRUE(retry.ok()) << retry.ec.message();
  ASSERT_EQ(retry.res.status, 201) << retry.res.body;
  EXPECT_EQ(retry.res.json().at("status"), "CAPTURED");
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 1);
  EXPECT_EQ(stat(api_, "orders_with_multiple_charges"), 0);

  auto order = api_.get(orders + "/" + id);
  EXPECT_EQ(order.res.json().at("status"), "PAID");
  auto again = api_.post(payments_of(id), "k-pay", payment_body());
  EXPECT_EQ(again.res.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(again.res.body, retry.res.body);
}

TEST_F(CrashAndTakeover, TakeoverOfPaymentWhoseOrderAnotherKeyPaidRefundsAndConflicts) {
  auto id = order_with_crashed_payment("k-pay-a");
  auto other = api_.post(payments_of(id), "k-pay-b", payment_body());
  ASSERT_EQ(other.res.status, 201) << other.res.body;
  EXPECT_EQ(stat(api_, "provider_charges"), 2);

  api_.advance_clock(31);
  auto retry = api_.post(payments_of(id), "k-pay-a", payment_body());
  ASSERT_TRUE(retry.ok()) << retry.ec.message();
  EXPECT_EQ(retry.res.status, 409) << retry.res.body;
  EXPECT_EQ(problem_name(retry.res), "invalid-state-transition");
  EXPECT_EQ(stat(api_, "provider_refunds"), 1);
  EXPECT_EQ(stat(api_, "payments"), 1);
  EXPECT_EQ(stat(api_, "orders_with_multiple_charges"), 0);  // net: one charge kept

  auto again = api_.post(payments_of(id), "k-pay-a", payment_body());
  EXPECT_EQ(again.res.status, 409);
  EXPECT_EQ(again.res.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(stat(api_, "provider_refunds"), 1);
}

TEST_F(CrashAndTakeover, CrashedCreateIsTakenOverAndCreatesExactlyOneOrder) {
  api_.set_faults(fault_once(orders, "crash_during_processing"));
  auto crashed = api_.post(orders, "k-create", order_body("m-1"));
  EXPECT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();
  EXPECT_EQ(stat(api_, "orders"), 0);

  auto early = api_.post(orders, "k-create", order_body("m-1"));
  EXPECT_EQ(early.res.status, 409) << early.res.body;
  EXPECT_EQ(problem_name(early.res), "idempotency-request-in-progress");

  api_.advance_clock(31);
  auto retry = api_.post(orders, "k-create", order_body("m-1"));
  ASSERT_EQ(retry.res.status, 201) << retry.res.body;
  EXPECT_EQ(retry.res.json().at("merchant_order_id"), "m-1");
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "business_id_conflicts"), 0);

  auto again = api_.post(orders, "k-create", order_body("m-1"));
  EXPECT_EQ(again.res.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(again.res.body, retry.res.body);
  EXPECT_EQ(stat(api_, "orders"), 1);
}

TEST_F(CrashAndTakeover, CancelOfPaidOrderWithProviderTimeoutRefundsExactlyOnce) {
  auto id = api_.create_order("m-1", "k-create");
  ASSERT_EQ(api_.post(payments_of(id), "k-pay", payment_body()).res.status, 201);
  api_.set_faults(fault_once("/v1/orders/{id}/cancel", "provider_timeout"));

  const json reason = {{"reason", "customer asked"}};
  auto first = api_.post(cancel_of(id), "k-cancel", reason);
  ASSERT_TRUE(first.ok()) << first.ec.message();
  EXPECT_EQ(first.res.status, 504) << first.res.body;
  EXPECT_EQ(first.res.header("Retry-After"), "1");
  EXPECT_EQ(api_.get(orders + "/" + id).res.json().at("status"), "PAID");

  auto retry = api_.post(cancel_of(id), "k-cancel", reason);
  ASSERT_EQ(retry.res.status, 200) << retry.res.body;
  EXPECT_EQ(retry.res.json().at("status"), "CANCELLED");
  EXPECT_EQ(stat(api_, "provider_refunds"), 1);
  EXPECT_EQ(stat(api_, "provider_charges"), 1);

  auto again = api_.post(cancel_of(id), "k-cancel", reason);
  EXPECT_EQ(again.res.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(stat(api_, "provider_refunds"), 1);
}

// ---- a slow executor that loses its lease (delay fault longer than the lease, in server time)

TEST_F(CrashAndTakeover, SlowCreateThatLostItsLeaseDoesNotCompleteOverTheTakeover) {
  api_.set_faults(fault_once(orders, "delay", {{"delay_ms", 3000}}));
  auto slow = std::async(std::launch::async, [port = server_.port()] {
    api_client own{port};
    return own.post(orders, "k-create", order_body("m-1"));
  });
  ASSERT_TRUE(eventually([&] { return stat(api_, "faults_injected") == 1; }));
  api_.advance_clock(31);  // the slow executor's lease is over while it still sleeps

  auto takeover = api_.post(orders, "k-create", order_body("m-1"));
  ASSERT_EQ(takeover.res.status, 201) << takeover.res.body;
  auto original = slow.get();
  ASSERT_TRUE(original.ok()) << original.ec.message();

  // The slow executor's work rolled back: no business conflict recorded, and the stored answer
  // is the takeover's.
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "business_id_conflicts"), 0);
  auto replay = api_.post(orders, "k-create", order_body("m-1"));
  EXPECT_EQ(replay.res.body, takeover.res.body);
  if (original.res.status == 201) {
    EXPECT_EQ(original.res.json().at("id"), takeover.res.json().at("id"));
  }
}

TEST_F(CrashAndTakeover, SlowPaymentThatLostItsLeaseDoesNotRefundTheTakeoversCharge) {
  auto id = api_.create_order("m-1", "k-create");
  api_.set_faults(fault_once("/v1/orders/{id}/payments", "delay", {{"delay_ms", 3000}}));
  auto slow = std::async(std::launch::async, [port = server_.port(), id] {
    api_client own{port};
    return own.post(payments_of(id), "k-pay", payment_body());
  });
  ASSERT_TRUE(eventually([&] { return stat(api_, "faults_injected") == 1; }));
  api_.advance_clock(31);

  auto takeover = api_.post(payments_of(id), "k-pay", payment_body());
  ASSERT_EQ(takeover.res.status, 201) << takeover.res.body;
  auto original = slow.get();
  ASSERT_TRUE(original.ok()) << original.ec.message();

  // One charge, kept: the order is PAID with a CAPTURED payment, so nothing may be refunded.
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 1);
  EXPECT_EQ(stat(api_, "provider_refunds"), 0);
  EXPECT_EQ(stat(api_, "invalid_state_transitions"), 0);
  EXPECT_EQ(api_.get(orders + "/" + id).res.json().at("status"), "PAID");
}

}  // namespace
