// The real client (curl_transport, asio_scheduler) against the real mock server over real
// sockets: first answers, definite rejections, a dead server, a key reused with another payload,
// and the lookup by business ID when every write response is lost.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "tests/idem/support/live_client.hpp"

namespace idem::test::live {
namespace {

using kit::api_client;
using kit::running_server;

TEST(LiveClient, CreatesAnOrderWithOneAttemptAndTheServerHoldsIt) {
  running_server server;
  api_client api{server.port(), tenant};
  const auto i = orders::create(order_of("m-plain"));

  const auto o = submit_live(live_options(server.port()), i);

  ASSERT_EQ(o.kind(), outcome_kind::succeeded) << o.body();
  EXPECT_EQ(o.status(), 201);
  EXPECT_FALSE(o.replayed());
  EXPECT_EQ(o.attempts(), 1u);
  EXPECT_EQ(o.key(), i.key().str());
  EXPECT_EQ(nlohmann::json::parse(o.body())["merchant_order_id"], "m-plain");
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_EQ(stats["requests"], 1);
}

TEST(LiveClient, ResubmittingASettledIntentIsAReplayNotASecondOrder) {
  running_server server;
  api_client api{server.port(), tenant};
  const auto i = orders::create(order_of("m-twice"));

  const auto first = submit_live(live_options(server.port()), i);
  const auto second = submit_live(live_options(server.port()), i);

  EXPECT_EQ(first.kind(), outcome_kind::succeeded);
  EXPECT_FALSE(first.replayed());
  EXPECT_EQ(second.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(second.replayed());
  EXPECT_EQ(second.body(), first.body());
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_EQ(stats["replays"], 1);
}

TEST(LiveClient, DeadServerIsNotSentWithinTheDeadline) {
  auto options = live_options(unused_port());
  options.deadline.total = 2s;
  options.deadline.lookup_reserve = 500ms;

  const auto o = submit_live(options, orders::create(order_of("m-dead")));

  EXPECT_EQ(o.kind(), outcome_kind::not_sent);
  EXPECT_GE(o.attempts(), 1u);
  EXPECT_EQ(o.status(), 0);
  EXPECT_TRUE(o.last_transport_error()) << "a refused connect is a transport error";
  EXPECT_FALSE(o.recovered_by_lookup());
  // The reason, in idem's category and as the portable condition (issue 42).
  EXPECT_EQ(o.reason(), errc::connection_refused);
  EXPECT_EQ(o.reason(), std::errc::connection_refused);
  EXPECT_NE(o.describe().find("connection-refused: connection refused"), std::string::npos)
      << o.describe();
}

TEST(LiveClient, SameKeyWithAnotherPayloadIsRejectedAsAKeyMismatch) {
  running_server server;
  api_client api{server.port(), tenant};
  const auto original = orders::create(order_of("m-mismatch"));
  ASSERT_EQ(submit_live(live_options(server.port()), original).kind(), outcome_kind::succeeded);
  // The API never changes a payload under a key; restoring with another one is the client bug
  // the server must catch.
  auto changed = original.payload();
  changed["customer_id"] = "c-2";
  const auto tampered = intent::restore(original.key(), original.op(), changed, original.lookup());

  const auto o = submit_live(live_options(server.port()), tampered);

  EXPECT_EQ(o.kind(), outcome_kind::rejected);
  EXPECT_EQ(o.status(), 422);
  EXPECT_EQ(o.error(), "idempotency-key-mismatch");
  EXPECT_EQ(o.attempts(), 1u) << "a client bug is final, never retried";
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_EQ(stats["key_mismatches"], 1);
}

TEST(LiveClient, InvalidCurrencyIsRejectedWith400AndNothingIsStored) {
  running_server server;
  api_client api{server.port(), tenant};

  const auto o = submit_live(live_options(server.port()), orders::create(order_of("m-eur", "eur")));

  EXPECT_EQ(o.kind(), outcome_kind::rejected);
  EXPECT_EQ(o.status(), 400);
  EXPECT_TRUE(o.error().empty()) << "a 400 is a definite answer, not a client bug";
  EXPECT_EQ(o.attempts(), 1u);
  const auto stats = api.stats();
  EXPECT_EQ(stats["orders"], 0) << stats.dump();
  EXPECT_EQ(stats["payments"], 0) << stats.dump();
}

TEST(LiveClient, OrderWhoseEveryWriteResponseWasLostIsFoundByLookup) {
  running_server server;
  api_client api{server.port(), tenant};
  // Every first execution commits and loses its answer. A retry would only be a replay, so the
  // client is allowed a single failed write: its retries run out and the lookup must settle it.
  api.set_faults(only(on_create("drop_response_after_commit")));
  auto options = live_options(server.port());
  options.max_failed_attempts = 1;

  const auto o = submit_live(options, orders::create(order_of("m-lookup")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_FALSE(o.replayed());
  EXPECT_EQ(o.attempts(), 1u);
  EXPECT_EQ(o.status(), 200) << "the status of the lookup's GET";
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_EQ(stats["faults_injected"], 1);
  EXPECT_EQ(stats["replays"], 0);
}

TEST(LiveClient, AcceptedForLaterIsPolledToItsFinalAnswer) {
  running_server server;
  api_client api{server.port(), tenant};
  // The execution takes 3.5 s; the client's first attempt asks `Prefer: respond-async` (no
  // wait: its key was never sent before), so the server answers 202 with a status URL, and the
  // client polls it to the 201.
  api.set_faults(only(on_create("delay", {{"delay_ms", 3500}, {"times", 1}})));
  auto options = live_options(server.port());
  options.prefer_async = true;
  options.deadline.attempt_timeout = 3s;
  auto seen = std::make_shared<recording_observer>();
  options.observer = seen;

  const auto o = submit_live(options, orders::create(order_of("m-async")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << o.body();
  EXPECT_EQ(o.status(), 201);
  EXPECT_EQ(nlohmann::json::parse(o.body())["merchant_order_id"], "m-async");
  ASSERT_FALSE(seen->statuses.empty());
  EXPECT_EQ(seen->statuses.front(), 202);
  expect_one_order(api.stats());
}

TEST(LiveClient, PaysAnOrderWithExactlyOneCharge) {
  running_server server;
  api_client api{server.port(), tenant};
  const auto order_id = api.create_order("m-pay", "key-m-pay");
  ASSERT_FALSE(order_id.empty());

  const auto o = submit_live(live_options(server.port()), orders::pay(order_id, payment_of()));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << o.body();
  EXPECT_EQ(o.status(), 201);
  EXPECT_EQ(o.attempts(), 1u);
  expect_one_charge(api.stats());
}

}  // namespace
}  // namespace idem::test::live
