// An executor that dies mid-request (crash fault, provider timeout) leaves its record PROCESSING:
// duplicates wait while the lease runs, then one takes over, asks the provider what happened by
// the stable provider key, and finishes the work exactly once (contract section 3).
#include <gtest/gtest.h>

#include <future>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using json = nlohmann::json;

// The 202 of `Prefer: respond-async, wait=0` comes back once the key is claimed; the execution
// starts at once on the server's single thread and runs up to its delay timer.
const mock::header_list respond_at_once{{"Prefer", "respond-async, wait=0"}};

// The default server options: a 30 s lease, which the clock moves below are measured against.
class CrashAndTakeover : public ::testing::Test {
 protected:
  running_server server_;
  api_client api_{server_.port()};

  // Creates an order and crashes the first payment of it under `key`.
  std::string order_with_crashed_payment(const std::string& key) {
    auto id = api_.create_order("m-1", "k-create");
    api_.set_faults(only(on_pay("crash_during_processing", {{"times", 1}})));
    auto crashed = api_.post(payments_of(id), key, payment_body());
    EXPECT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();
    return id;
  }

  // ---- a slow executor that loses its lease (delay fault longer than the lease, in server time)
  //
  // The slow request's 202 shows that its execution sleeps on a 3 s timer; the clock then jumps
  // past its lease and a retry takes over. To see what the slow executor does once it wakes, a
  // marker (a create under another key) is started after it and sleeps the same 3 s: the server
  // fires the two timers on its single thread in expiry order, so once the marker has completed,
  // the slow executor has run to its end too. (The takeover has those 3 s, a few local round
  // trips, to come in; the tests check that it executed rather than replayed.)
  static constexpr int slow_ms = 3000;

  // Faults for a slow first execution matched by `slow_rule`, then the marker's delay.
  static json slow_then_marker(json slow_rule) {
    return fault_config({std::move(slow_rule), on_create("delay", marker_delay())});
  }
  static json marker_delay() { return {{"delay_ms", slow_ms}, {"times", 1}}; }

  void start_marker() {
    ASSERT_TRUE(
        has_status(api_.post(orders, "k-marker", order_body("m-marker"), respond_at_once), 202));
  }
  // Returns once the marker has completed: a duplicate with `Prefer: wait` is answered when the
  // record it waits on completes.
  void wait_for_marker() {
    auto done = api_.post(orders, "k-marker", order_body("m-marker"), {{"Prefer", "wait=10"}});
    ASSERT_TRUE(has_status(done, 201));
    ASSERT_TRUE(replayed_header_is(done, "true"));  // the marker's own answer, not a takeover
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
  EXPECT_TRUE(is_problem(retry, 409, "idempotency-request-in-progress"));
  EXPECT_EQ(retry.res.header("Retry-After"), "5");  // the time left, clamped to 1-5 s
  EXPECT_TRUE(has_no_replayed_header(retry));
  EXPECT_EQ(stat(api_, "payments"), 0);
  EXPECT_EQ(stat(api_, "in_progress_conflicts"), 1);
}

TEST_F(CrashAndTakeover, RetryAfterTheLeaseTakesOverAndChargesExactlyOnce) {
  auto id = order_with_crashed_payment("k-pay");
  api_.advance_clock(31);

  auto retry = api_.post(payments_of(id), "k-pay", payment_body());
  ASSERT_TRUE(has_status(retry, 201));
  EXPECT_EQ(retry.res.json().at("status"), "CAPTURED");
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 1);
  EXPECT_EQ(stat(api_, "orders_with_multiple_charges"), 0);

  auto order = api_.get(orders + "/" + id);
  EXPECT_EQ(order.res.json().at("status"), "PAID");
  auto again = api_.post(payments_of(id), "k-pay", payment_body());
  EXPECT_TRUE(replayed_header_is(again, "true"));
  EXPECT_EQ(again.res.body, retry.res.body);
}

// Another key paying the order while the crashed payment's lease runs used to be charged too
// (two charges, one refunded later by the takeover). Payments of one order are serialised: the
// other key waits, and the takeover keeps the one charge.
TEST_F(CrashAndTakeover, OtherKeyWaitsForTheCrashedPaymentWhoseTakeoverKeepsTheOneCharge) {
  auto id = order_with_crashed_payment("k-pay-a");
  auto other = api_.post(payments_of(id), "k-pay-b", payment_body());
  EXPECT_TRUE(is_problem(other, 409, "idempotency-request-in-progress"));
  EXPECT_EQ(stat(api_, "provider_charges"), 1);

  api_.advance_clock(31);
  auto retry = api_.post(payments_of(id), "k-pay-a", payment_body());
  ASSERT_TRUE(has_status(retry, 201));
  EXPECT_TRUE(replayed_header_is(retry, "false"));  // this retry took the record over
  auto late = api_.post(payments_of(id), "k-pay-b", payment_body());
  EXPECT_TRUE(is_problem(late, 409, "invalid-state-transition"));
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "provider_refunds"), 0);
  EXPECT_EQ(stat(api_, "payments"), 1);
  EXPECT_EQ(stat(api_, "orders_with_multiple_charges"), 0);
}

TEST_F(CrashAndTakeover, CrashedCreateIsTakenOverAndCreatesExactlyOneOrder) {
  api_.set_faults(only(on_create("crash_during_processing", {{"times", 1}})));
  auto crashed = api_.post(orders, "k-create", order_body("m-1"));
  EXPECT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();
  EXPECT_EQ(stat(api_, "orders"), 0);

  auto early = api_.post(orders, "k-create", order_body("m-1"));
  EXPECT_TRUE(is_problem(early, 409, "idempotency-request-in-progress"));

  api_.advance_clock(31);
  auto retry = api_.post(orders, "k-create", order_body("m-1"));
  ASSERT_TRUE(has_status(retry, 201));
  EXPECT_EQ(retry.res.json().at("merchant_order_id"), "m-1");
  EXPECT_EQ(stat(api_, "orders"), 1);
  EXPECT_EQ(stat(api_, "business_id_conflicts"), 0);

  auto again = api_.post(orders, "k-create", order_body("m-1"));
  EXPECT_TRUE(replayed_header_is(again, "true"));
  EXPECT_EQ(again.res.body, retry.res.body);
  EXPECT_EQ(stat(api_, "orders"), 1);
}

TEST_F(CrashAndTakeover, CancelOfPaidOrderWithProviderTimeoutRefundsExactlyOnce) {
  auto id = api_.create_order("m-1", "k-create");
  ASSERT_TRUE(has_status(api_.post(payments_of(id), "k-pay", payment_body()), 201));
  api_.set_faults(only(fault_rule("provider_timeout", "/v1/orders/{id}/cancel", {{"times", 1}})));

  const json reason = {{"reason", "customer asked"}};
  auto first = api_.post(cancel_of(id), "k-cancel", reason);
  EXPECT_TRUE(has_status(first, 504));
  EXPECT_EQ(first.res.header("Retry-After"), "1");
  EXPECT_EQ(api_.get(orders + "/" + id).res.json().at("status"), "PAID");

  auto retry = api_.post(cancel_of(id), "k-cancel", reason);
  ASSERT_TRUE(has_status(retry, 200));
  EXPECT_EQ(retry.res.json().at("status"), "CANCELLED");
  EXPECT_EQ(stat(api_, "provider_refunds"), 1);
  EXPECT_EQ(stat(api_, "provider_charges"), 1);

  auto again = api_.post(cancel_of(id), "k-cancel", reason);
  EXPECT_TRUE(replayed_header_is(again, "true"));
  EXPECT_EQ(stat(api_, "provider_refunds"), 1);
}

TEST_F(CrashAndTakeover, SlowCreateThatLostItsLeaseDoesNotCompleteOverTheTakeover) {
  api_.set_faults(slow_then_marker(on_create("delay", {{"delay_ms", slow_ms}, {"times", 1}})));
  auto slow = api_.post(orders, "k-create", order_body("m-1"), respond_at_once);
  ASSERT_TRUE(has_status(slow, 202));
  api_.advance_clock(31);  // the slow executor's lease is over while it still sleeps
  ASSERT_NO_FATAL_FAILURE(start_marker());

  auto takeover = api_.post(orders, "k-create", order_body("m-1"));
  ASSERT_TRUE(has_status(takeover, 201));
  ASSERT_TRUE(replayed_header_is(takeover, "false"));  // executed while the slow one slept
  ASSERT_NO_FATAL_FAILURE(wait_for_marker());

  // The slow executor's work rolled back: no second m-1, no business conflict recorded, and the
  // stored answer (replayed, and on the slow request's status URL) is the takeover's.
  EXPECT_EQ(stat(api_, "orders"), 2);  // m-1 and the marker's
  EXPECT_EQ(stat(api_, "business_id_conflicts"), 0);
  auto replay = api_.post(orders, "k-create", order_body("m-1"));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(replay.res.body, takeover.res.body);
  auto status = api_.get(slow.res.header("Location").value_or("/v1/requests/none"));
  ASSERT_TRUE(has_status(status, 200));
  const auto record = status.res.json();
  EXPECT_EQ(record["state"], "COMPLETED") << record;
  EXPECT_EQ(record["response"]["status"], 201) << record;
  EXPECT_EQ(record["response"]["body"], takeover.res.json());
}

TEST_F(CrashAndTakeover, SlowPaymentThatLostItsLeaseDoesNotRefundTheTakeoversCharge) {
  auto id = api_.create_order("m-1", "k-create");
  api_.set_faults(slow_then_marker(on_pay("delay", {{"delay_ms", slow_ms}, {"times", 1}})));
  auto slow = api_.post(payments_of(id), "k-pay", payment_body(), respond_at_once);
  ASSERT_TRUE(has_status(slow, 202));
  api_.advance_clock(31);
  ASSERT_NO_FATAL_FAILURE(start_marker());

  auto takeover = api_.post(payments_of(id), "k-pay", payment_body());
  ASSERT_TRUE(has_status(takeover, 201));
  ASSERT_TRUE(replayed_header_is(takeover, "false"));
  ASSERT_NO_FATAL_FAILURE(wait_for_marker());

  // One charge, kept: the order is PAID with a CAPTURED payment, so nothing may be refunded.
  EXPECT_EQ(stat(api_, "provider_charges"), 1);
  EXPECT_EQ(stat(api_, "payments"), 1);
  EXPECT_EQ(stat(api_, "provider_refunds"), 0);
  EXPECT_EQ(stat(api_, "invalid_state_transitions"), 0);
  EXPECT_EQ(api_.get(orders + "/" + id).res.json().at("status"), "PAID");
  auto status = api_.get(slow.res.header("Location").value_or("/v1/requests/none"));
  ASSERT_TRUE(has_status(status, 200));
  EXPECT_EQ(status.res.json()["response"]["body"], takeover.res.json()) << status.res.body;
}

// The slow executor, once awake, used to look its record up by (principal, operation, key): after
// the takeover's record was purged and the key reused with another body, it answered its client
// with that other request's order.
TEST_F(CrashAndTakeover, SlowExecutorWhoseKeyWasPurgedAndReusedDoesNotAnswerWithTheNewRequest) {
  api_.set_faults(only(on_create("delay", {{"delay_ms", slow_ms}, {"times", 1}})));
  auto slow = std::async(std::launch::async, [port = server_.port()] {
    api_client own{port};
    return own.post(orders, "k-create", order_body("m-1"));
  });
  ASSERT_TRUE(eventually([&] { return stat(api_, "faults_injected") == 1; }));
  api_.advance_clock(31);
  ASSERT_TRUE(has_status(api_.post(orders, "k-create", order_body("m-1")), 201));  // takeover

  api_.advance_clock(25 * 3600);  // past the 24 h TTL: the takeover's record is purged
  ASSERT_EQ(stat(api_, "records_purged"), 1);
  auto reused = api_.post(orders, "k-create", order_body("m-2"));
  ASSERT_TRUE(has_status(reused, 201));

  auto answer = slow.get();
  EXPECT_NE(answer.res.body, reused.res.body);
  EXPECT_TRUE(is_problem(answer, 500, "internal")) << answer.res.body;
}

}  // namespace
}  // namespace idem::kit
