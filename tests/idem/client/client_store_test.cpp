// The client and its intent store: write-ahead (nothing leaves before the intent and the
// attempt's start are durable), honest answers when the store fails, what a restored intent is
// checked against, planned intents, the audit timeline, and keys the server may have forgotten.

#include <deque>
#include <set>

#include "idem/journal_error.hpp"
#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

using idem::kit::failed;
using idem::kit::problem;
using idem::kit::reply;

// A memory store whose durable writes can be held back (to see what the client does before a
// write completes) or failed (a full disk). Like a real store, an event is durable only with
// every earlier event of its intent: once one failed, the intent's later waited writes fail too.
class scripted_store final : public intent_store {
 public:
  void async_write(intent_event e, boost::asio::any_io_executor ex,
                   write_handler handler) override {
    const bool fail = !accept(e);
    const std::error_code ec = fail ? make_error_code(journal_errc::full) : std::error_code{};
    held.push_back({std::move(ex), std::move(handler), ec});
    if (!holding) release();
  }
  void write(intent_event e) override { accept(e); }
  bool durable_on_write() const noexcept override { return durable; }
  std::optional<intent_record> find(const idempotency_key& k) const override {
    return inner.find(k);
  }
  std::vector<intent_record> open_intents() const override { return inner.open_intents(); }
  std::vector<timeline_entry> timeline(const idempotency_key& k) const override {
    return inner.timeline(k);
  }
  void release() {
    while (!held.empty()) {
      auto w = std::move(held.front());
      held.pop_front();
      boost::asio::post(w.ex, boost::asio::append(std::move(w.handler), w.ec));
    }
  }
  [[nodiscard]] std::size_t pending() const { return held.size(); }

  memory_intent_store inner;
  bool holding = false;
  bool durable = false;  // what durable_on_write() says
  std::function<bool(const intent_event&)> fail_when;

 private:
  // Applies `e` unless it fails; false if it (or an earlier event of its intent) failed.
  bool accept(const intent_event& e) {
    const std::string& key = key_of(e).str();
    if (failed.count(key) != 0 || (fail_when && fail_when(e))) {
      failed.insert(key);
      return false;
    }
    inner.write(e);
    return true;
  }
  struct pending_write {
    boost::asio::any_io_executor ex;
    write_handler handler;
    std::error_code ec;
  };
  std::deque<pending_write> held;
  std::set<std::string> failed;
};

template <class Event>
bool is(const intent_event& e) {
  return std::holds_alternative<Event>(e);
}

class client_store_test : public client_test {
 protected:
  client_options with_store() { return one_attempt_with(store); }
  std::shared_ptr<scripted_store> store = std::make_shared<scripted_store>();
};

TEST_F(client_store_test, NothingIsSentBeforeTheIntentAndTheAttemptStartAreDurable) {
  auto c = make_client(with_store());
  store->holding = true;
  const auto order = orders::create(sample_order());
  net->respond([](const http_request&) { return reply(201, R"({"id":"ord_1"})"); });
  std::optional<outcome> got;
  c->async_submit(order, [&](outcome o) { got = std::move(o); });
  drain();
  // The intent and its first attempt's start are written; the client waits for durability.
  ASSERT_TRUE(store->find(order.key()));
  EXPECT_EQ(store->find(order.key())->attempts, 1u);
  EXPECT_EQ(store->pending(), 1u);
  EXPECT_TRUE(net->requests().empty()) << "sent before the attempt's start was durable";
  store->holding = false;
  store->release();
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
  EXPECT_EQ(net->requests("POST").size(), 1u);
}

TEST_F(client_store_test, AStoreDurableOnWriteIsNeverWaitedForAndStillWrittenBeforeSending) {
  auto c = make_client(with_store());
  store->durable = true;
  store->holding = true;  // an async_write would never complete
  const auto order = orders::create(sample_order());
  std::uint32_t attempts_recorded_when_sent = 0;
  net->respond([&](const http_request&) {
    attempts_recorded_when_sent = store->find(order.key())->attempts;
    return reply(201, R"({"id":"ord_1"})");
  });
  std::optional<outcome> got;
  c->async_submit(order, [&](outcome o) { got = std::move(o); });
  drain();
  EXPECT_EQ(store->pending(), 0u) << "waited for a store that said its writes are durable";
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
  EXPECT_EQ(attempts_recorded_when_sent, 1u) << "sent before the attempt's start was written";
  EXPECT_EQ(store->find(order.key())->state, intent_state::succeeded);
}

TEST_F(client_store_test, AStoreThatCannotWriteTheIntentEndsItNotSentWithNothingSent) {
  auto c = make_client(with_store());
  store->fail_when = is<events::created>;
  const auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::not_sent);
  EXPECT_EQ(o.error(), "journal-write-failed");
  EXPECT_EQ(o.last_transport_error(), make_error_code(journal_errc::full));
  EXPECT_TRUE(net->requests().empty());
}

TEST_F(client_store_test, AFailedAttemptStartWriteIsNeverCountedAsMaybeSent) {
  auto c = make_client(with_store());
  store->fail_when = is<events::attempt_started>;
  const auto order = orders::create(sample_order());
  const auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::not_sent);
  EXPECT_EQ(o.attempts(), 0u);
  EXPECT_TRUE(net->requests().empty());
  ASSERT_TRUE(store->find(order.key()));
  EXPECT_FALSE(store->find(order.key())->maybe_sent());
}

// The process died with its POST on the wire: the start is recorded, the end is not. A resume
// that cannot reach the server must say unresolved, never "nothing happened".
TEST_F(client_store_test, AnAttemptStartedAndNeverFinishedCountsAsMaybeSent) {
  const auto order = orders::create(sample_order());
  auto c = make_client(with_store());
  store->write(events::created{.what = order, .principal = c->principal()});
  store->write(events::attempt_started{.key = order.key(), .number = 1});
  ASSERT_TRUE(store->find(order.key())->maybe_sent());

  net->respond([](const http_request& r) {
    return r.method == "GET" ? reply(200, R"({"data":[]})") : failed(transport_failure::not_sent);
  });
  const auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::unresolved);
  EXPECT_EQ(store->find(order.key())->attempts, 2u) << "attempts count over the intent's life";
}

TEST_F(client_store_test, AResumedIntentsFirstWriteAsksTheServerToWaitForABusyKey) {
  // The process died with its POST on the wire; that execution may still hold the key, so the
  // resumed write asks for `Prefer: wait` although it is this process's first attempt.
  const auto order = orders::create(sample_order());
  auto c = make_client(with_store());
  store->write(events::created{.what = order, .principal = c->principal()});
  store->write(events::attempt_started{.key = order.key(), .number = 1});
  net->respond(script({reply(201)}));
  EXPECT_EQ(submit(*c, order).kind(), outcome_kind::succeeded);
  const auto posts = net->requests("POST");
  ASSERT_EQ(posts.size(), 1u);
  ASSERT_NE(header_of(posts[0], "Prefer"), nullptr);
  EXPECT_EQ(header_of(posts[0], "Prefer")->rfind("wait=", 0), 0u);
}

TEST_F(client_store_test, ARestoredIntentWithAnotherBodyUnderAKnownKeyIsRefusedBeforeSending) {
  auto c = make_client(with_store());
  const auto order = orders::create(sample_order());
  net->respond([](const http_request& r) {
    return r.method == "GET" ? reply(200, R"({"data":[]})") : reply(503);
  });
  ASSERT_EQ(submit(*c, order).kind(), outcome_kind::unresolved);
  const auto sent = net->requests().size();

  auto changed = order.payload();
  changed["amount_minor"] = 1;
  const auto o = submit(*c, intent::restore(order.key(), order.op(), changed, order.lookup()));
  EXPECT_EQ(o.kind(), outcome_kind::rejected);
  EXPECT_EQ(o.error(), "idempotency-key-mismatch");
  EXPECT_EQ(net->requests().size(), sent);
  EXPECT_TRUE(store->find(order.key())->is_open()) << "the refusal must not close the intent";
}

TEST_F(client_store_test, AFinalIntentSubmittedAgainIsAnsweredFromTheStoreWithoutSending) {
  auto c = make_client(with_store());
  const auto order = orders::create(sample_order());
  net->respond([](const http_request&) { return reply(201, R"({"id":"ord_1"})"); });
  ASSERT_EQ(submit(*c, order).kind(), outcome_kind::succeeded);
  const auto again = submit(*c, order);
  EXPECT_EQ(again.kind(), outcome_kind::succeeded);
  EXPECT_EQ(again.status(), 201);
  EXPECT_EQ(again.body(), R"({"id":"ord_1"})");
  EXPECT_EQ(net->requests().size(), 1u);
}

TEST_F(client_store_test, APlannedIntentsPathIsWrittenDownBeforeItsFirstAttempt) {
  auto c = make_client(with_store());
  const auto order = orders::create(sample_order());
  const auto payment = orders::plan_payment(order, {.amount_minor = 1500, .currency = "EUR"});
  std::optional<std::error_code> planned;
  c->async_plan(payment, [&](std::error_code ec) { planned = ec; });
  drain();
  ASSERT_EQ(planned, std::error_code{});
  auto rec = store->find(payment.key());
  ASSERT_TRUE(rec);
  EXPECT_FALSE(rec->path_bound);
  EXPECT_EQ(rec->depends_on, order.key().str());
  EXPECT_EQ(store->open_intents().size(), 1u);

  net->respond([](const http_request&) { return reply(201, R"({"id":"pay_1"})"); });
  const auto o = submit(*c, payment.bind("ord 7"));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  ASSERT_EQ(net->requests().size(), 1u);
  EXPECT_EQ(net->requests()[0].url, "http://api.test/v1/orders/ord%207/payments");
  rec = store->find(payment.key());
  EXPECT_TRUE(rec->path_bound);
  EXPECT_EQ(rec->what.op().path, "/v1/orders/ord%207/payments");
  const auto t = store->timeline(payment.key());
  ASSERT_GE(t.size(), 3u);
  EXPECT_EQ(t[0].what, timeline_entry::kind::created);
  EXPECT_EQ(t[1].what, timeline_entry::kind::path_bound);
  EXPECT_EQ(t[2].what, timeline_entry::kind::attempt_started);
}

// A plan of many waits once for the lot (intent_store::async_write_all; a store without its own
// takes each write in turn): nothing is sent, plans keep their template and prerequisite, and
// the one completion comes when the last write is durable, with the first failure.
class client_plan_all_test : public client_store_test {
 protected:
  // What the completion got so far (members: it may come after plan_all returned).
  std::optional<std::error_code> plan_all(client& c) {
    c.async_plan_all(intents, plans, [this](std::error_code ec) {
      ++calls;
      got = ec;
    });
    drain();
    return got;
  }
  int calls = 0;
  std::optional<std::error_code> got;
  const intent a = orders::create(sample_order("m-all-a"));
  const intent b = orders::create(sample_order("m-all-b"));
  const planned_intent payment = orders::plan_payment(a, {.amount_minor = 1500, .currency = "EUR"});
  std::vector<intent> intents{a, b};
  std::vector<planned_intent> plans{payment};
};

TEST_F(client_plan_all_test, WritesEveryIntentAndPlanDownAndCompletesOnceWhenAllAreDurable) {
  auto c = make_client(with_store());
  store->holding = true;
  EXPECT_FALSE(plan_all(*c)) << "completed before its writes were durable";
  EXPECT_EQ(store->pending(), 3u);
  store->release();
  drain();
  EXPECT_EQ(got, std::error_code{});
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(store->open_intents().size(), 3u);
  EXPECT_TRUE(store->find(a.key())->path_bound);
  const auto plan = store->find(payment.key());
  ASSERT_TRUE(plan);
  EXPECT_FALSE(plan->path_bound);
  EXPECT_EQ(plan->depends_on, a.key().str());
  EXPECT_TRUE(net->requests().empty());
}

TEST_F(client_plan_all_test, SaysWhichErrorKeptAWriteFromBeingDurable) {
  auto c = make_client(with_store());
  store->fail_when = [this](const intent_event& e) { return key_of(e) == b.key(); };
  EXPECT_EQ(plan_all(*c), make_error_code(journal_errc::full));
  EXPECT_EQ(calls, 1);
  EXPECT_TRUE(store->find(a.key()));
}

TEST_F(client_store_test, AnIntentMadeOfflineIsDurableAtOnceOrSaysWhyNot) {
  // Offline, the first attempt (the intent's first durable point) may be hours away. A store
  // that cannot make the intent durable (a full disk) must say so now, not lose it to a kill.
  auto c = make_client(with_store());
  store->fail_when = [](const intent_event& e) { return is<events::created>(e); };
  c->set_network(network_status::offline);
  std::optional<outcome> got;
  c->async_submit(orders::create(sample_order()), [&](outcome o) { got = std::move(o); });
  drain();
  ASSERT_TRUE(got.has_value()) << "the app was never told its intent is not durable";
  EXPECT_EQ(got->kind(), outcome_kind::not_sent) << to_string(got->kind());
  EXPECT_EQ(got->error(), "journal-write-failed");
  EXPECT_TRUE(net->requests().empty());
}

TEST_F(client_store_test, ASlowJournalCommitComesOutOfTheAttemptNotOutOfTheDeadline) {
  // A 1.5 s commit of the attempt's start: the attempt gets what is left of its slice, so the
  // lookup keeps its reserve and the outcome comes by the 3 s deadline (it came at 3.5 s).
  auto o_ = with_store();
  o_.deadline = {.total = 3s, .lookup_reserve = 1s, .min_attempt = 100ms, .attempt_timeout = 2s};
  auto c = make_client(o_);
  store->holding = true;
  // Every write is sent and times out (a lost answer), taking its whole timeout.
  fake_reply lost = reply(201);
  lost.takes = 1h;
  net->respond([lost](const http_request& r) {
    return r.method == "GET" ? reply(200, R"({"data":[]})") : lost;
  });
  std::optional<outcome> got;
  c->async_submit(orders::create(sample_order()), [&](outcome o) { got = std::move(o); });
  drain();
  ASSERT_EQ(store->pending(), 1u);
  clock->advance(1500ms);  // the commit takes 1.5 s
  store->holding = false;
  store->release();
  drain();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->kind(), outcome_kind::unresolved) << to_string(got->kind());
  EXPECT_LE(got->elapsed(), 3s) << "the outcome came after the deadline";
  EXPECT_FALSE(net->requests("GET").empty()) << "the commit ate the lookup's reserve";
}

TEST_F(client_store_test, AnUnboundPlansDraftIsNeverSentAndTheBindStillWorks) {
  // A resume loop that submits every open record as it is (docs/JOURNAL.md once showed one)
  // sent a plan's draft to the literal "/v1/orders/{id}/payments": a 404, final, after which
  // the real bind was refused as another request under the key. The draft is refused, sends
  // nothing and closes nothing.
  auto c = make_client(with_store());
  const auto order = orders::create(sample_order());
  const auto payment = orders::plan_payment(order, {.amount_minor = 1500, .currency = "EUR"});
  c->async_plan(payment, [](std::error_code) {});
  drain();
  net->respond([](const http_request& r) {
    return r.url.find("{id}") != std::string::npos ? reply(404) : reply(201, R"({"id":"pay_1"})");
  });
  const auto draft = submit(*c, store->open_intents().at(0).what);
  EXPECT_EQ(draft.kind(), outcome_kind::not_sent) << to_string(draft.kind());
  EXPECT_EQ(draft.error(), "unbound-plan");
  EXPECT_TRUE(net->requests().empty());
  EXPECT_TRUE(store->find(payment.key())->is_open());

  const auto bound = submit(*c, payment.bind("ord_7"));
  EXPECT_EQ(bound.kind(), outcome_kind::succeeded) << bound.error();
  ASSERT_EQ(net->requests().size(), 1u);
  EXPECT_EQ(net->requests()[0].url, "http://api.test/v1/orders/ord_7/payments");
}

TEST_F(client_store_test, TheTimelineTellsEveryAttemptWaitAndTheOutcome) {
  auto opts = with_store();
  opts.max_failed_attempts.reset();
  auto c = make_client(opts);
  const auto order = orders::create(sample_order());
  auto posts = std::make_shared<int>(0);
  net->respond([posts](const http_request&) {
    if ((*posts)++ == 0) return reply(503, "", {{"X-Request-Id", "req_a"}});
    return reply(201, R"({"id":"ord_1"})", {{"Request-Id", "req_b"}});
  });
  ASSERT_EQ(submit(*c, order).kind(), outcome_kind::succeeded);
  std::vector<timeline_entry::kind> kinds;
  for (const auto& e : store->timeline(order.key()))
    kinds.push_back(e.what);
  using k = timeline_entry::kind;
  EXPECT_EQ(kinds, (std::vector<k>{k::created, k::attempt_started, k::attempt_finished, k::waited,
                                   k::attempt_started, k::attempt_finished, k::outcome}));
  const auto t = store->timeline(order.key());
  EXPECT_EQ(t[2].status, 503);
  EXPECT_EQ(t[2].request_id, "req_a");
  EXPECT_EQ(t[2].cls, attempt_class::unknown);
  EXPECT_EQ(t[4].attempt, 2u);
  EXPECT_EQ(t[5].request_id, "req_b");
  EXPECT_EQ(t[6].detail, "succeeded");
}

// Key retention: the server forgets keys after 24 h; an intent first sent longer ago than
// that (minus the margin) is looked up before any write.
class stale_key_test : public client_store_test {
 protected:
  // An intent whose only attempt, a day and a half ago, may have executed.
  intent sent_long_ago(client& c, const orders::order_request& req) {
    const auto order = orders::create(req);
    store->write(events::created{.what = order, .principal = c.principal()});
    store->write(events::attempt_started{.key = order.key(), .number = 1, .at = clock->wall_now()});
    store->write(events::attempt_finished{
        .key = order.key(), .number = 1, .at = clock->wall_now(), .cls = attempt_class::unknown});
    clock->pass(std::chrono::hours(36));
    return order;
  }
};

TEST_F(stale_key_test, FoundByLookupIsSucceededWithoutAnyWrite) {
  auto c = make_client(with_store());
  const auto req = sample_order();
  const auto order = sent_long_ago(*c, req);
  net->respond([&](const http_request& r) {
    return r.method == "GET" ? reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump())
                             : reply(201, R"({"id":"ord_2"})");
  });
  const auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_TRUE(net->requests("POST").empty());
}

TEST_F(stale_key_test, ProvenNeverExecutedIsSentAgainWithItsKey) {
  auto c = make_client(with_store());
  const auto order = sent_long_ago(*c, sample_order());
  net->respond([](const http_request& r) {
    return r.method == "GET" ? reply(200, R"({"data":[]})") : reply(201, R"({"id":"ord_1"})");
  });
  const auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  ASSERT_EQ(net->requests().size(), 2u);
  EXPECT_EQ(net->requests()[0].method, "GET") << "the lookup must come before the write";
  EXPECT_EQ(*header_of(net->requests()[1], "Idempotency-Key"), order.key().str());
}

TEST_F(stale_key_test, NoAnswerFromTheLookupLeavesItUnresolvedWithoutAnyWrite) {
  auto c = make_client(with_store());
  const auto order = sent_long_ago(*c, sample_order());
  net->respond([](const http_request&) { return reply(503); });
  const auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::unresolved);
  EXPECT_TRUE(net->requests("POST").empty());
}

TEST_F(stale_key_test, WithoutALookupItIsNeverSentBlindly) {
  auto c = make_client(with_store());
  const auto i = intent::create({"POST", "/v1/things"}, {{"a", 1}});
  store->write(events::created{.what = i, .principal = c->principal()});
  store->write(events::attempt_started{.key = i.key(), .number = 1, .at = clock->wall_now()});
  clock->pass(std::chrono::hours(24));
  net->respond([](const http_request&) { return reply(201); });
  EXPECT_EQ(submit(*c, i).kind(), outcome_kind::unresolved);
  EXPECT_TRUE(net->requests().empty());
}

TEST_F(stale_key_test, AYoungerIntentIsSentWithoutALookup) {
  auto c = make_client(with_store());
  const auto order = orders::create(sample_order());
  store->write(events::created{.what = order, .principal = c->principal()});
  store->write(events::attempt_started{.key = order.key(), .number = 1, .at = clock->wall_now()});
  clock->pass(std::chrono::hours(22));  // the margin (1 h) before the 24 h retention
  net->respond([](const http_request&) { return reply(201, R"({"id":"ord_1"})"); });
  EXPECT_EQ(submit(*c, order).kind(), outcome_kind::succeeded);
  EXPECT_TRUE(net->requests("GET").empty());
}

}  // namespace
}  // namespace idem::test
