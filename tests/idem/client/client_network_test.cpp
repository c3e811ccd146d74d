// The network as the app reports it (client::set_network) and the return to the foreground
// (client::on_foreground), in virtual time: no attempt starts offline, nothing is lost or sent
// twice, waiting intents resume with their keys, spread; the deadline pauses only by policy.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <set>

#include "idem/memory_intent_store.hpp"
#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

using idem::kit::failed;
using idem::kit::hang;
using idem::kit::reply;

class client_network_test : public client_test {
 protected:
  client_options with(bool pause_deadline) {
    auto o = options();
    o.store = store;
    o.lifecycle.pause_deadline_while_offline = pause_deadline;
    return o;
  }
  // Submits `i`; the outcome lands in `outcomes[i.key()]`.
  void submit_async(client& c, const intent& i) {
    c.async_submit(i, [this, key = i.key().str()](outcome o) { outcomes[key] = std::move(o); });
  }
  // Answers every POST 201 and records the virtual time it was sent at.
  void answer_created() {
    net->respond([this](const http_request& r) {
      if (r.method == "GET") return reply(200, R"({"data":[]})");
      sent_at.push_back(clock->elapsed());
      return reply(201, R"({"id":"ord_1"})");
    });
  }
  std::shared_ptr<memory_intent_store> store = std::make_shared<memory_intent_store>();
  std::map<std::string, outcome> outcomes;
  std::vector<fake_scheduler::clock::duration> sent_at;
};

TEST_F(client_network_test, OfflineNothingIsSentTheIntentIsWrittenDownAndOnlineSendsItWithItsKey) {
  auto c = make_client(with(/*pause_deadline=*/true));
  answer_created();
  c->set_network(network_status::offline);
  const intent order = orders::create(sample_order());
  submit_async(*c, order);
  drain();
  EXPECT_TRUE(net->requests().empty()) << "an attempt started while offline";
  EXPECT_TRUE(outcomes.empty());
  ASSERT_TRUE(store->find(order.key()).has_value()) << "the intent was not written down";
  EXPECT_EQ(store->find(order.key())->attempts, 0u);
  EXPECT_EQ(c->network(), network_status::offline);

  c->set_network(network_status::online);
  drain();
  ASSERT_EQ(net->requests("POST").size(), 1u);
  EXPECT_EQ(*header_of(net->requests("POST")[0], "Idempotency-Key"), order.key().str());
  ASSERT_TRUE(outcomes.contains(order.key().str()));
  EXPECT_EQ(outcomes[order.key().str()].kind(), outcome_kind::succeeded);
  EXPECT_EQ(c->network(), network_status::online);
}

TEST_F(client_network_test, WaitingForTheNetworkWithAPausedDeadlineArmsNoTimer) {
  auto c = make_client(with(/*pause_deadline=*/true));
  answer_created();
  c->set_network(network_status::offline);
  for (int n = 0; n < 3; ++n)
    submit_async(*c, orders::create(sample_order("m-" + std::to_string(n))));
  drain();
  EXPECT_EQ(clock->pending(), 0u) << "a parked intent keeps a timer (wake-ups while idle)";
  EXPECT_TRUE(outcomes.empty());
  // A client destroyed with submissions parked stops them (not sent): nothing is left behind.
  c.reset();
  drain();
  EXPECT_EQ(outcomes.size(), 3u);
  for (const auto& [key, o] : outcomes)
    EXPECT_EQ(o.kind(), outcome_kind::not_sent) << key;
}

TEST_F(client_network_test, APausedDeadlineStandsStillWhileOffline) {
  auto o = with(/*pause_deadline=*/true);
  o.deadline.total = 30s;
  o.deadline.attempt_timeout = 10s;
  auto c = make_client(o);
  answer_created();
  c->set_network(network_status::offline);
  submit_async(*c, orders::create(sample_order()));
  drain();
  clock->pass(10min);  // a long ride in a lift
  c->set_network(network_status::online);
  drain();
  ASSERT_EQ(net->requests("POST").size(), 1u);
  // The whole deadline is still there: the attempt gets its full timeout.
  EXPECT_EQ(net->requests("POST")[0].timeout, 10s);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes.begin()->second.kind(), outcome_kind::succeeded);
}

TEST_F(client_network_test, ARunningDeadlineThatPassesOfflineEndsNotSentAndTheIntentStaysOpen) {
  auto o = with(/*pause_deadline=*/false);
  o.deadline.total = 30s;
  auto c = make_client(o);
  answer_created();
  c->set_network(network_status::offline);
  const intent order = orders::create(sample_order());
  submit_async(*c, order);
  drain();  // virtual time runs to the deadline
  ASSERT_TRUE(outcomes.contains(order.key().str()));
  EXPECT_EQ(outcomes[order.key().str()].kind(), outcome_kind::not_sent);
  EXPECT_GE(clock->elapsed(), 30s);
  EXPECT_TRUE(net->requests().empty());
  ASSERT_TRUE(store->find(order.key()).has_value());
  EXPECT_TRUE(store->find(order.key())->is_open()) << "a later resume must find it";
}

TEST_F(client_network_test, BackOnlineBeforeARunningDeadlinePassesTheIntentGoesOut) {
  clock = std::make_shared<fake_scheduler>(io.get_executor(), fake_scheduler::mode::manual);
  net = std::make_shared<fake_transport>(io.get_executor(), clock);
  auto o = with(/*pause_deadline=*/false);
  o.deadline.total = 30s;
  o.deadline.attempt_timeout = 10s;
  auto c = make_client(o);
  answer_created();
  c->set_network(network_status::offline);
  submit_async(*c, orders::create(sample_order()));
  drain();
  clock->advance(12s);
  drain();
  EXPECT_TRUE(outcomes.empty());
  c->set_network(network_status::online);
  drain();
  clock->advance(o.lifecycle.resume_spread);
  drain();
  ASSERT_EQ(net->requests("POST").size(), 1u);
  // The deadline ran on while offline: 18 s are left, 3 s of them kept for the lookup.
  EXPECT_LE(net->requests("POST")[0].timeout, 10s);
  ASSERT_EQ(outcomes.size(), 1u);
  EXPECT_EQ(outcomes.begin()->second.kind(), outcome_kind::succeeded);
  EXPECT_EQ(clock->pending(), 0u) << "the deadline's timer of the parked intent was left armed";
}

TEST_F(client_network_test, OnlineResumesEveryWaitingIntentOnceSpreadOverTheWindow) {
  // Virtual time in 5 ms steps: each POST is stamped with the step it left in.
  clock = std::make_shared<fake_scheduler>(io.get_executor(), fake_scheduler::mode::manual);
  net = std::make_shared<fake_transport>(io.get_executor(), clock);
  auto o = with(/*pause_deadline=*/true);
  o.lifecycle.resume_spread = 2s;
  auto c = make_client(o);
  answer_created();
  c->set_network(network_status::offline);
  std::vector<intent> orders_placed;
  for (int n = 0; n < 200; ++n) {
    orders_placed.push_back(orders::create(sample_order("m-" + std::to_string(n))));
    submit_async(*c, orders_placed.back());
  }
  drain();
  ASSERT_TRUE(net->requests().empty());
  const auto online_at = clock->elapsed();
  c->set_network(network_status::online);
  drain();
  for (int step = 0; step < 400; ++step) {
    clock->advance(5ms);
    drain();
  }
  ASSERT_EQ(net->requests("POST").size(), orders_placed.size());
  std::multiset<std::string> keys;
  for (const auto& r : net->requests("POST"))
    keys.insert(*header_of(r, "Idempotency-Key"));
  for (const auto& i : orders_placed)
    EXPECT_EQ(keys.count(i.key().str()), 1u) << "sent other than once: " << i.key().str();
  std::set<fake_scheduler::clock::duration> moments(sent_at.begin(), sent_at.end());
  for (const auto t : sent_at) {
    EXPECT_GE(t, online_at);
    EXPECT_LT(t, online_at + 2s);
  }
  // 200 intents over 400 steps of 5 ms: about 150 distinct steps; all at once would be 1.
  EXPECT_GT(moments.size(), 100u) << "the resumed intents were not spread";
  EXPECT_EQ(outcomes.size(), orders_placed.size());
}

TEST_F(client_network_test, OfflineDuringABackoffTheRetryWaitsForTheNetwork) {
  auto c = make_client(with(/*pause_deadline=*/true));
  auto posts = std::make_shared<int>(0);
  net->respond([posts, &c](const http_request&) {
    if ((*posts)++ == 0) {
      c->set_network(network_status::offline);  // the radio goes as the first answer arrives
      return reply(503);
    }
    return reply(201, R"({"id":"ord_1"})");
  });
  const intent order = orders::create(sample_order());
  submit_async(*c, order);
  drain();
  EXPECT_EQ(*posts, 1) << "a retry started while offline";
  EXPECT_TRUE(outcomes.empty());
  c->set_network(network_status::online);
  drain();
  EXPECT_EQ(*posts, 2);
  ASSERT_TRUE(outcomes.contains(order.key().str()));
  EXPECT_EQ(outcomes[order.key().str()].kind(), outcome_kind::succeeded);
  for (const auto& r : net->requests("POST"))
    EXPECT_EQ(*header_of(r, "Idempotency-Key"), order.key().str());
}

TEST_F(client_network_test, TheLookupWaitsForTheNetworkTooAndThenFindsTheOrder) {
  auto o = with(/*pause_deadline=*/true);
  o.max_failed_attempts = 1;
  auto c = make_client(o);
  const auto req = sample_order();
  net->respond([&c, req](const http_request& r) {
    if (r.method == "GET") {
      return reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump());
    }
    c->set_network(network_status::offline);  // the connection drops with the request out
    return failed(transport_failure::unknown);
  });
  const intent order = orders::create(req);
  submit_async(*c, order);
  drain();
  EXPECT_TRUE(net->requests("GET").empty()) << "a lookup started while offline";
  EXPECT_TRUE(outcomes.empty());
  c->set_network(network_status::online);
  drain();
  ASSERT_EQ(net->requests("GET").size(), 1u);
  ASSERT_TRUE(outcomes.contains(order.key().str()));
  EXPECT_EQ(outcomes[order.key().str()].kind(), outcome_kind::succeeded);
  EXPECT_TRUE(outcomes[order.key().str()].recovered_by_lookup());
}

TEST_F(client_network_test, CancelledWhileWaitingForTheNetworkItEndsNotSentAtOnce) {
  auto c = make_client(with(/*pause_deadline=*/true));
  answer_created();
  c->set_network(network_status::offline);
  const intent order = orders::create(sample_order());
  boost::asio::cancellation_signal cancel;
  std::optional<outcome> got;
  c->async_submit(order, boost::asio::bind_cancellation_slot(
                             cancel.slot(), [&got](outcome o) { got = std::move(o); }));
  drain();
  ASSERT_FALSE(got.has_value());
  cancel.emit(boost::asio::cancellation_type::terminal);
  drain();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->kind(), outcome_kind::not_sent);
  c->set_network(network_status::online);
  drain();
  EXPECT_TRUE(net->requests().empty()) << "a cancelled intent was sent when the network came back";
}

TEST_F(client_network_test,
       AnIntentThatMayHaveBeenSentEndsUnresolvedNotNotSentWhenItsDeadlinePassesOffline) {
  auto o = with(/*pause_deadline=*/false);
  o.deadline.total = 30s;
  auto c = make_client(o);
  net->respond([&c](const http_request&) {
    c->set_network(network_status::offline);
    return failed(transport_failure::unknown);
  });
  const intent order = orders::create(sample_order());
  submit_async(*c, order);
  drain();
  ASSERT_TRUE(outcomes.contains(order.key().str()));
  EXPECT_EQ(outcomes[order.key().str()].kind(), outcome_kind::unresolved);
  EXPECT_EQ(net->requests("POST").size(), 1u);
  EXPECT_TRUE(store->find(order.key())->is_open());
}

TEST_F(client_network_test, ForegroundSendsTheWriteInFlightAgainUnderTheSameKeyFailingNothing) {
  auto o = with(/*pause_deadline=*/false);
  o.max_failed_attempts = 1;  // a dropped write must not use up the one failure allowed
  auto c = make_client(o);
  auto posts = std::make_shared<int>(0);
  net->respond([posts](const http_request&) {
    return (*posts)++ == 0 ? hang() : reply(201, R"({"id":"ord_1"})");
  });
  const intent order = orders::create(sample_order());
  submit_async(*c, order);
  drain();
  ASSERT_EQ(net->hanging(), 1u);
  c->on_foreground();
  drain();
  EXPECT_EQ(net->resets(), 1u);
  ASSERT_EQ(net->requests("POST").size(), 2u);
  for (const auto& r : net->requests("POST"))
    EXPECT_EQ(*header_of(r, "Idempotency-Key"), order.key().str());
  EXPECT_EQ(net->requests("POST")[0].body, net->requests("POST")[1].body);
  ASSERT_TRUE(outcomes.contains(order.key().str()));
  EXPECT_EQ(outcomes[order.key().str()].kind(), outcome_kind::succeeded);
  EXPECT_EQ(outcomes[order.key().str()].attempts(), 2u);
}

TEST_F(client_network_test, ForegroundWithNothingInFlightOnlyDropsTheConnections) {
  auto c = make_client(with(/*pause_deadline=*/false));
  answer_created();
  c->on_foreground();
  drain();
  EXPECT_EQ(net->resets(), 1u);
  EXPECT_TRUE(net->requests().empty());
  EXPECT_EQ(submit(*c, orders::create(sample_order())).kind(), outcome_kind::succeeded);
}

}  // namespace
}  // namespace idem::test
