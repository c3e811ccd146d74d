// The client as an Asio citizen: 202 polling, single flight, per-operation cancellation in each
// state, every completion token, completion never inline and on the associated executor, and
// the blocking wrapper.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/deferred.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include "idem/blocking_client.hpp"
#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

namespace asio = boost::asio;
using idem::kit::failed;
using idem::kit::hang;
using idem::kit::problem;
using idem::kit::reply;

nlohmann::json request_status(const std::string& state, nlohmann::json response = nullptr) {
  return {{"request_id", "req_1"}, {"state", state}, {"response", response}};
}

TEST_F(client_test, AcceptedIsPolledUntilFinal) {
  auto opts = options();
  opts.poll_interval = 1s;
  opts.resend_interval = 20s;  // no re-send before the answer: one write
  auto c = make_client(opts);
  auto polls = std::make_shared<int>(0);
  net->respond([polls](const http_request& r) {
    if (r.method == "POST")
      return reply(202, R"({"request_id":"req_1","state":"PROCESSING"})",
                   {{"Location", "/v1/requests/req_1"}});
    EXPECT_EQ(r.url, "http://api.test/v1/requests/req_1");
    if ((*polls)++ < 2) return reply(200, request_status("PROCESSING").dump());
    return reply(
        200, request_status("COMPLETED", {{"status", 201}, {"body", {{"id", "ord_1"}}}}).dump());
  });
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.status(), 201);
  EXPECT_EQ(nlohmann::json::parse(o.body())["id"], "ord_1");
  EXPECT_EQ(o.attempts(), 1u);
  EXPECT_EQ(*polls, 3);
}

TEST_F(client_test, AMalformedStatusResourceIsNoAnswerNotACrash) {
  auto opts = options();
  opts.poll_interval = 1s;
  opts.resend_interval = 20s;
  auto c = make_client(opts);
  auto polls = std::make_shared<int>(0);
  net->respond([polls](const http_request& r) {
    if (r.method == "POST")
      return reply(202, R"({"state":"PROCESSING"})", {{"Location", "/v1/requests/req_1"}});
    if (r.url.find("/v1/requests/") == std::string::npos) return reply(200, R"({"data":[]})");
    if ((*polls)++ < 1) {
      return reply(200, request_status("COMPLETED", {{"status", "201"}, {"body", "{}"}}).dump());
    }
    return reply(200, request_status("COMPLETED", {{"status", 201}, {"body", "{}"}}).dump());
  });
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_GE(*polls, 2);
}

TEST_F(client_test, PollingResendsThePostWithTheSameKey) {
  auto opts = options();
  opts.poll_interval = 1s;
  opts.resend_interval = 3s;
  auto c = make_client(opts);
  auto order = orders::create(sample_order());
  auto posts = std::make_shared<int>(0);
  net->respond([posts](const http_request& r) {
    if (r.method == "GET") return reply(200, request_status("PROCESSING").dump());
    // The third POST takes the crashed executor's lease over and finishes the order.
    if (++*posts < 3) return reply(202, "{}", {{"Location", "/v1/requests/req_1"}});
    return reply(201, R"({"id":"ord_1"})");
  });
  auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.attempts(), 3u);
  for (const auto& r : net->requests("POST")) {
    EXPECT_EQ(*header_of(r, "Idempotency-Key"), order.key().str());
  }
  EXPECT_GE(net->requests("GET").size(), 4u);
}

TEST_F(client_test, PollingResendsSpendTheRetryBudgetAndWaitWhenItIsEmpty) {
  auto opts = options();
  opts.poll_interval = 1s;
  opts.resend_interval = 3s;
  opts.retry_budget = {.reserve = 0, .per_first_attempt = 0, .trickle_per_second = 0};
  auto c = make_client(opts);
  auto polls = std::make_shared<int>(0);
  net->respond([polls](const http_request& r) {
    if (r.method == "POST") return reply(202, "{}", {{"Location", "/v1/requests/req_1"}});
    if ((*polls)++ < 8) return reply(200, request_status("PROCESSING").dump());
    return reply(200, request_status("COMPLETED", {{"status", 201}, {"body", "{}"}}).dump());
  });
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  // Eight seconds of polling would have re-sent the POST twice; without a token, none is.
  EXPECT_EQ(net->requests("POST").size(), 1u);
  EXPECT_EQ(c->counters().retries, 0u);
}

TEST_F(client_test, StatusUrlOnAnotherOriginIsNeverSentTheCredentials) {
  auto opts = options();
  opts.poll_interval = 1s;
  opts.resend_interval = 3s;
  auto c = make_client(opts);
  auto posts = std::make_shared<int>(0);
  net->respond([posts](const http_request& r) {
    if (r.method != "POST") return reply(404);
    if (++*posts < 2) return reply(202, "{}", {{"Location", "https://evil.test/v1/requests/r"}});
    return reply(201, "{}", {{"Idempotent-Replayed", "true"}});
  });
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(net->requests("POST").size(), 2u) << "the POST is re-sent instead of polling";
  for (const auto& r : net->requests()) {
    EXPECT_EQ(r.url.rfind("http://api.test/", 0), 0u) << r.url;
  }
}

TEST_F(client_test, AbsoluteStatusUrlOnTheApiOriginIsPolled) {
  auto opts = options();
  opts.poll_interval = 1s;
  opts.resend_interval = 20s;
  auto c = make_client(opts);
  net->respond([](const http_request& r) {
    if (r.method == "POST") {
      return reply(202, "{}", {{"Location", "http://api.test/v1/requests/req_1"}});
    }
    return reply(200, request_status("COMPLETED", {{"status", 201}, {"body", "{}"}}).dump());
  });
  EXPECT_EQ(submit(*c, orders::create(sample_order())).kind(), outcome_kind::succeeded);
  ASSERT_EQ(net->requests("GET").size(), 1u);
  EXPECT_EQ(net->requests("GET")[0].url, "http://api.test/v1/requests/req_1");
}

TEST_F(client_test, AcceptedButNeverFinishedIsUnresolvedWithinTheDeadline) {
  auto c = make_client();
  net->respond([](const http_request& r) {
    if (r.method == "POST") return reply(202, "{}", {{"Location", "/v1/requests/req_1"}});
    if (r.url.find("/v1/requests/") != std::string::npos) {
      return reply(200, request_status("PROCESSING").dump());
    }
    return reply(200, R"({"data":[]})");
  });
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::unresolved);
  EXPECT_LE(clock->elapsed(), options().deadline.total);
}

TEST_F(client_test, SecondSubmitOfAnIntentInFlightJoinsIt) {
  auto c = make_client();
  auto order = orders::create(sample_order());
  auto restored = intent::restore(order.key(), order.op(), order.payload(), order.lookup());
  net->respond([](const http_request&) { return reply(201, R"({"id":"ord_1"})"); });
  std::vector<outcome> got;
  c->async_submit(order, [&](outcome o) { got.push_back(o); });
  c->async_submit(order, [&](outcome o) { got.push_back(o); });
  c->async_submit(restored, [&](outcome o) { got.push_back(o); });
  drain();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(net->requests("POST").size(), 1u);
  for (const auto& o : got) {
    EXPECT_EQ(o.kind(), outcome_kind::succeeded);
    EXPECT_EQ(o.key(), order.key().str());
  }
}

TEST_F(client_test, SameKeyWithAnotherPayloadIsRefusedLocally) {
  auto c = make_client();
  auto order = orders::create(sample_order());
  auto changed = order.payload();
  changed["amount_minor"] = 1;
  auto forged = intent::restore(order.key(), order.op(), changed, order.lookup());
  net->respond([](const http_request&) { return reply(201); });
  std::vector<outcome> got;
  c->async_submit(order, [&](outcome o) { got.push_back(o); });
  c->async_submit(forged, [&](outcome o) { got.push_back(o); });
  drain();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(net->requests("POST").size(), 1u);
  // The forged one completes first: it never joined.
  EXPECT_EQ(got[0].kind(), outcome_kind::rejected);
  EXPECT_EQ(got[0].error(), "idempotency-key-mismatch");
  EXPECT_EQ(got[1].kind(), outcome_kind::succeeded);
}

class client_manual_clock_test : public client_test {
 protected:
  client_manual_clock_test() {
    clock = std::make_shared<fake_scheduler>(io.get_executor(), fake_scheduler::mode::manual);
    net = std::make_shared<fake_transport>(io.get_executor(), clock);
  }
};

TEST_F(client_manual_clock_test, CancelWhileWaitingAfterAMaybeExecutedAttemptIsUnresolved) {
  auto c = make_client();
  net->respond([](const http_request&) { return reply(503); });
  asio::cancellation_signal cancel;
  std::optional<outcome> got;
  c->async_submit(orders::create(sample_order()),
                  asio::bind_cancellation_slot(cancel.slot(), [&](outcome o) { got = o; }));
  drain();
  ASSERT_EQ(clock->pending(), 1u);  // backing off
  ASSERT_FALSE(got);
  cancel.emit(asio::cancellation_type::terminal);
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::unresolved);
  EXPECT_EQ(got->attempts(), 1u);
  EXPECT_EQ(net->requests().size(), 1u);  // no retry and no lookup after the cancel
}

TEST_F(client_manual_clock_test, CancelWhileWaitingWhenNothingLeftIsNotSent) {
  auto c = make_client();
  net->respond([](const http_request&) { return failed(transport_failure::not_sent); });
  asio::cancellation_signal cancel;
  std::optional<outcome> got;
  c->async_submit(orders::create(sample_order()),
                  asio::bind_cancellation_slot(cancel.slot(), [&](outcome o) { got = o; }));
  drain();
  ASSERT_EQ(clock->pending(), 1u);
  cancel.emit(asio::cancellation_type::terminal);
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::not_sent);
}

// A lookup timed out and its backoff fitted the time left, but the thread woke late (a busy
// machine): no second lookup can start. The lookup was asked and never answered, and the
// outcome says so, with what the lookup got, rather than only the writes' last failure.
TEST_F(client_manual_clock_test, ALookupThatCannotBeAskedAgainAfterALateWakeUpIsUnanswered) {
  auto opts = options();
  opts.deadline = {.total = 2s, .lookup_reserve = 1s, .min_attempt = 100ms};
  opts.max_failed_attempts = 1;
  auto c = make_client(opts);
  net->respond([](const http_request&) { return hang(); });
  std::optional<outcome> got;
  c->async_submit(orders::create(sample_order()), [&](outcome o) { got = o; });
  drain();
  fake_reply timed_out;
  timed_out.result.ec = std::make_error_code(std::errc::timed_out);
  timed_out.result.failure = transport_failure::unknown;
  clock->pass(1s);  // the write runs out where the lookup's reserve begins
  net->finish_hanging(timed_out);
  drain();
  ASSERT_EQ(net->requests("GET").size(), 1u);
  clock->pass(100ms);  // the lookup times out, on time
  net->finish_hanging(timed_out);
  drain();
  ASSERT_EQ(clock->pending(), 1u);  // backing off, within the 900 ms left
  ASSERT_FALSE(got);
  clock->advance(850ms);  // the backoff ends 50 ms before the deadline: too late to ask again
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(net->requests("GET").size(), 1u);
  EXPECT_EQ(got->kind(), outcome_kind::unresolved);
  EXPECT_EQ(got->reason(), errc::lookup_unanswered);
  EXPECT_EQ(got->explain_lookup("u"),
            "no lookup answered within the deadline (" + timed_out.result.ec.message() + " at u)");
}

TEST_F(client_test, CancelDuringATransferIsUnresolvedNeverFailed) {
  auto c = make_client();
  net->respond([](const http_request&) { return hang(); });
  asio::cancellation_signal cancel;
  std::optional<outcome> got;
  c->async_submit(orders::create(sample_order()),
                  asio::bind_cancellation_slot(cancel.slot(), [&](outcome o) { got = o; }));
  drain();
  ASSERT_EQ(net->hanging(), 1u);
  ASSERT_FALSE(got);
  cancel.emit(asio::cancellation_type::terminal);
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::unresolved);
  EXPECT_EQ(got->last_transport_error(), std::make_error_code(std::errc::operation_canceled));
  EXPECT_EQ(net->hanging(), 0u);
}

TEST_F(client_test, CancelBeforeTheFirstAttemptIsNotSent) {
  auto c = make_client();
  net->respond([](const http_request&) { return reply(201); });
  asio::cancellation_signal cancel;
  std::optional<outcome> got;
  c->async_submit(orders::create(sample_order()),
                  asio::bind_cancellation_slot(cancel.slot(), [&](outcome o) { got = o; }));
  cancel.emit(asio::cancellation_type::terminal);  // before the submission reached the strand
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::not_sent);
  EXPECT_EQ(got->attempts(), 0u);
  EXPECT_TRUE(net->requests().empty());
}

TEST_F(client_test, AJoinerThatCancelsLeavesWithoutStoppingTheFlight) {
  auto c = make_client();
  net->respond([](const http_request&) { return hang(); });
  auto order = orders::create(sample_order());
  asio::cancellation_signal cancel;
  std::optional<outcome> first, second;
  c->async_submit(order, [&](outcome o) { first = o; });
  c->async_submit(order,
                  asio::bind_cancellation_slot(cancel.slot(), [&](outcome o) { second = o; }));
  drain();
  cancel.emit(asio::cancellation_type::terminal);
  drain();
  ASSERT_TRUE(second);
  EXPECT_EQ(second->kind(), outcome_kind::unresolved);
  EXPECT_FALSE(first);
  EXPECT_EQ(net->hanging(), 1u);  // the flight goes on for the first caller
  c.reset();                      // stops the flight: the first caller is answered too
  drain();
  ASSERT_TRUE(first);
  EXPECT_EQ(first->kind(), outcome_kind::unresolved);
}

TEST_F(client_test, CompletionIsNeverInline) {
  auto c = make_client();
  net->respond([](const http_request&) { return reply(201); });
  auto order = orders::create(sample_order());
  bool done = false;
  c->async_submit(order, [&](outcome) { done = true; });
  EXPECT_FALSE(done);
  drain();
  EXPECT_TRUE(done);
  // Even the local refusal of a forged key (decided without any I/O) is posted.
  bool refused = false;
  c->async_submit(order, [&](outcome) {});
  auto changed = order.payload();
  changed["amount_minor"] = 2;
  c->async_submit(intent::restore(order.key(), order.op(), changed),
                  [&](outcome) { refused = true; });
  EXPECT_FALSE(refused);
  drain();
  EXPECT_TRUE(refused);
}

TEST_F(client_test, CompletionRunsOnTheAssociatedExecutor) {
  auto c = make_client();
  net->respond([](const http_request&) { return reply(201); });
  auto strand = asio::make_strand(io);
  bool on_strand = false;
  c->async_submit(orders::create(sample_order()), asio::bind_executor(strand, [&](outcome) {
                    on_strand = strand.running_in_this_thread();
                  }));
  drain();
  EXPECT_TRUE(on_strand);
}

TEST_F(client_test, WorksWithUseFuture) {
  auto c = make_client();
  net->respond([](const http_request&) { return reply(201); });
  std::future<outcome> f = c->async_submit(orders::create(sample_order()), asio::use_future);
  drain();
  ASSERT_EQ(f.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(f.get().kind(), outcome_kind::succeeded);
}

TEST_F(client_test, WorksWithUseAwaitable) {
  auto c = make_client();
  net->respond([](const http_request&) { return reply(201); });
  std::optional<outcome> got;
  asio::co_spawn(
      io,
      [&]() -> asio::awaitable<void> {
        got = co_await c->async_submit(orders::create(sample_order()), asio::use_awaitable);
      },
      asio::detached);
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
}

TEST_F(client_test, WorksWithDeferred) {
  auto c = make_client();
  net->respond([](const http_request&) { return reply(201); });
  auto op = c->async_submit(orders::create(sample_order()), asio::deferred);
  drain();
  EXPECT_TRUE(net->requests().empty());  // deferred: nothing starts until it is launched
  std::optional<outcome> got;
  std::move(op)([&](outcome o) { got = o; });
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
}

TEST_F(client_test, AMoveOnlyHandlerIsTakenAsItIs) {
  // A handler that owns something it cannot share (a unique_ptr, a promise) is moved into the
  // operation, never copied: with a copy, it did not compile.
  auto c = make_client();
  net->respond([](const http_request&) { return reply(201); });
  std::optional<outcome> got;
  auto owned = std::make_unique<int>(7);
  c->async_submit(orders::create(sample_order()), [&got, owned = std::move(owned)](outcome o) {
    EXPECT_EQ(*owned, 7);
    got = std::move(o);
  });
  std::optional<std::error_code> planned;
  c->async_plan(orders::create(sample_order()),
                [&planned, owned = std::make_unique<int>(1)](std::error_code ec) { planned = ec; });
  std::optional<flush_report> flushed;
  drain();
  c->async_flush(0ms, [&flushed, owned = std::make_unique<int>(2)](flush_report r) {
    flushed = std::move(r);
  });
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
  ASSERT_TRUE(planned);
  EXPECT_FALSE(*planned);
  EXPECT_TRUE(flushed);
  // The transport's and the scheduler's own entry points take them too.
  std::optional<transport_result> sent;
  net->async_send(
      http_request{
          .method = "GET", .url = "http://api.test/v1/orders/x", .headers = {}, .body = {}},
      [&sent, owned = std::make_unique<int>(3)](transport_result r) { sent = std::move(r); });
  bool waited = false;
  clock->async_wait(
      1ms, [&waited, owned = std::make_unique<int>(4)](std::error_code) { waited = true; });
  drain();
  EXPECT_TRUE(sent);
  EXPECT_TRUE(waited);
}

class counting_observer final : public observer {
 public:
  void on_attempt_started(const trace::attempt_started& e) override {
    ++attempts;
    keys.emplace_back(e.ids.key);
  }
  void on_attempt_finished(const trace::attempt_finished& e) override {
    if (e.status == 0) errors.push_back(e.transport_error);
  }
  void on_wait(const trace::wait&) override { ++backoffs; }
  void on_lookup_started(const trace::lookup_started&) override { ++lookups; }
  void on_intent_finished(const trace::intent_finished& e) override { last = e.kind; }
  std::vector<std::string> keys;
  std::vector<std::error_code> errors;
  int attempts = 0, backoffs = 0, lookups = 0;
  std::optional<outcome_kind> last;
};

TEST_F(client_test, ObserverAndCountersSeeTheLoop) {
  auto obs = std::make_shared<counting_observer>();
  auto opts = options();
  opts.observer = obs;
  auto c = make_client(opts);
  net->respond([n = 0](const http_request&) mutable { return ++n < 3 ? reply(503) : reply(201); });
  const auto order = orders::create(sample_order());
  EXPECT_EQ(submit(*c, order).kind(), outcome_kind::succeeded);
  EXPECT_EQ(obs->attempts, 3);
  EXPECT_EQ(obs->keys, std::vector<std::string>(3, order.key().str()));
  EXPECT_EQ(obs->backoffs, 2);
  EXPECT_EQ(obs->lookups, 0);
  EXPECT_EQ(obs->last, outcome_kind::succeeded);
  auto n = c->counters();
  EXPECT_EQ(n.attempts, 3u);
  EXPECT_EQ(n.retries, 2u);
  EXPECT_EQ(n.succeeded, 1u);
  EXPECT_EQ(n.unresolved + n.rejected + n.not_sent, 0u);
}

TEST_F(client_test, DestroyingTheClientCompletesWhatIsInFlight) {
  auto c = make_client();
  net->respond([](const http_request&) { return hang(); });
  std::optional<outcome> got;
  c->async_submit(orders::create(sample_order()), [&](outcome o) { got = o; });
  drain();
  c.reset();
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::unresolved);
}

TEST(blocking_client_test, SubmitReturnsTheOutcome) {
  client_options opts;
  opts.base_url = "http://api.test";
  opts.credentials = bearer_token{"token-a"};
  opts.rng_seed = 7;
  std::shared_ptr<fake_transport> net;
  blocking_client bc(
      opts,
      [&](asio::any_io_executor ex) {
        net = std::make_shared<fake_transport>(ex);
        net->respond([n = 0](const http_request&) mutable {
          return ++n < 2 ? reply(503) : reply(201, R"({"id":"ord_1"})");
        });
        return net;
      },
      [](asio::any_io_executor ex) { return std::make_shared<fake_scheduler>(ex); });
  auto o = bc.submit(orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.attempts(), 2u);
  EXPECT_EQ(bc.async().counters().succeeded, 1u);
}

}  // namespace
}  // namespace idem::test
