// The lookup by business ID against the real mock server: when every write's answer is lost, a
// payment and a cancellation are found on the order itself; and a duplicate-business-id after an
// attempt that may have executed is settled by what the server holds under that ID.
#include <gtest/gtest.h>

#include <string>

#include "tests/idem/support/live_client.hpp"

namespace idem::test::live {
namespace {

using kit::api_client;
using kit::running_server;

// Only one failed write: the first execution commits and loses its answer, so the retries run
// out at once and the lookup must settle the intent.
client_options one_failed_write(std::uint16_t port) {
  auto o = live_options(port);
  o.max_failed_attempts = 1;
  return o;
}

TEST(LiveClientLookup, PaymentWhoseEveryResponseWasLostIsFoundOnTheOrder) {
  running_server server;
  api_client api{server.port(), tenant};
  const auto order_id = api.create_order("m-pay-lost", "key-m-pay-lost");
  ASSERT_FALSE(order_id.empty());
  api.set_faults(only(on_pay("drop_response_after_commit")));

  const auto o = submit_live(one_failed_write(server.port()), orders::pay(order_id, payment_of()));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << o.body();
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_EQ(o.attempts(), 1u);
  // The payment found on the order, as the payment's own answer would have carried it.
  EXPECT_EQ(nlohmann::json::parse(o.body())["id"].get<std::string>().rfind("pay_", 0), 0u)
      << o.body();
  expect_one_charge(api.stats());
}

TEST(LiveClientLookup, CancellationWhoseEveryResponseWasLostIsFoundOnTheOrder) {
  running_server server;
  api_client api{server.port(), tenant};
  const auto order_id = api.create_order("m-cancel-lost", "key-m-cancel-lost");
  ASSERT_FALSE(order_id.empty());
  api.set_faults(only(rule("drop_response_after_commit", "/v1/orders/{id}/cancel")));

  const auto o = submit_live(one_failed_write(server.port()), orders::cancel(order_id, "changed"));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << o.body();
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_EQ(nlohmann::json::parse(o.body())["status"], "CANCELLED");
  EXPECT_EQ(api.stats()["faults_injected"], 1);
}

TEST(LiveClientLookup, DuplicateBusinessIdHoldingOtherContentIsRejected) {
  running_server server;
  api_client api{server.port(), tenant};
  // Someone else's order (other items) already holds the merchant_order_id.
  ASSERT_FALSE(api.create_order("m-taken", "key-someone-else").empty());
  // Our first attempt is lost on the way (it may have executed, as far as the client knows);
  // the retry meets the business ID taken, and the lookup finds other content.
  api.set_faults(only(on_create("reset_before_processing", {{"times", 1}})));

  const auto o = submit_live(live_options(server.port()), orders::create(order_of("m-taken")));

  EXPECT_EQ(o.kind(), outcome_kind::rejected);
  // Decided by the lookup's answer (the server's record of the other order), as it was sent.
  EXPECT_EQ(o.status(), 200);
  EXPECT_EQ(o.error(), "duplicate-business-id");
  EXPECT_EQ(nlohmann::json::parse(o.body())["merchant_order_id"], "m-taken");
  EXPECT_FALSE(o.recovered_by_lookup());
  // Two keys met the business ID (theirs and ours); it holds one order.
  EXPECT_EQ(api.stats()["orders"], 1);
}

TEST(LiveClientLookup, DuplicateBusinessIdHoldingOurContentIsFoundByTheLookup) {
  running_server server;
  api_client api{server.port(), tenant};
  ASSERT_EQ(submit_live(live_options(server.port()), orders::create(order_of("m-ours"))).kind(),
            outcome_kind::succeeded);
  // The same order as a new intent (another key): the first attempt is lost on the way, the
  // retry meets our own order under the business ID.
  api.set_faults(only(on_create("reset_before_processing", {{"times", 1}})));

  const auto o = submit_live(live_options(server.port()), orders::create(order_of("m-ours")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << o.body();
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_EQ(nlohmann::json::parse(o.body())["merchant_order_id"], "m-ours");
  // Two intents (two keys) met the business ID; it holds one order.
  EXPECT_EQ(api.stats()["orders"], 1);
}

}  // namespace
}  // namespace idem::test::live
