// The retry loop in virtual time: one key per intent, what each class of answer leads to, the
// deadline, Retry-After and the retry budget.

#include <set>

#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

using idem::kit::failed;
using idem::kit::problem;
using idem::kit::reply;

std::set<std::string> keys_sent(const fake_transport& net) {
  std::set<std::string> keys;
  for (const auto& r : net.requests("POST"))
    keys.insert(*header_of(r, "Idempotency-Key"));
  return keys;
}

TEST_F(client_test, KeyIsIdenticalAcrossAllAttempts) {
  auto c = make_client();
  auto order = orders::create(sample_order());
  net->respond(script({reply(503), failed(transport_failure::unknown), reply(502),
                       failed(transport_failure::not_sent), reply(201, R"({"id":"ord_1"})")}));
  auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.status(), 201);
  EXPECT_EQ(o.attempts(), 5u);
  EXPECT_EQ(o.key(), order.key().str());
  EXPECT_EQ(keys_sent(*net), std::set<std::string>{order.key().str()});
  for (const auto& r : net->requests("POST")) {
    EXPECT_EQ(r.body, order.body());
    EXPECT_EQ(r.url, "http://api.test/v1/orders");
    EXPECT_EQ(*header_of(r, "Authorization"), "Bearer token-a");
  }
}

TEST_F(client_test, EveryAttemptSendsTheIntentsOwnBytesNotACopyOfThem) {
  // A payload is never copied per attempt: the transport is handed the intent's frozen bytes
  // (and keeps them while curl reads them), so thousands in flight hold one body each.
  auto c = make_client();
  auto order = orders::create(sample_order());
  net->respond(script({reply(503), failed(transport_failure::unknown), reply(201)}));
  EXPECT_EQ(submit(*c, order).kind(), outcome_kind::succeeded);
  ASSERT_EQ(net->requests("POST").size(), 3u);
  for (const auto& r : net->requests("POST")) {
    EXPECT_EQ(r.body, order.body());
    EXPECT_EQ(static_cast<const void*>(r.body.data()),
              static_cast<const void*>(order.body().data()));
  }
}

TEST_F(client_test, DifferentIntentsGetDifferentKeysAndCopiesShareOne) {
  auto a = orders::create(sample_order());
  auto b = orders::create(sample_order());  // same content, a new intent: a new key
  auto a_copy = a;
  EXPECT_NE(a.key(), b.key());
  EXPECT_EQ(a_copy.key(), a.key());
  EXPECT_EQ(&a_copy.payload(), &a.payload());  // the same frozen data, not a copy of it
  auto c = make_client();
  net->respond(script({reply(201)}));
  EXPECT_EQ(submit(*c, a).kind(), outcome_kind::succeeded);
  EXPECT_EQ(submit(*c, b).kind(), outcome_kind::succeeded);
  EXPECT_EQ(keys_sent(*net).size(), 2u);
}

TEST_F(client_test, ReplayIsReportedAsSucceededAndReplayed) {
  auto c = make_client();
  net->respond(script({reply(201, "{}", {{"Idempotent-Replayed", "true"}})}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.replayed());
  EXPECT_FALSE(o.recovered_by_lookup());
}

struct retry_row {
  const char* name;
  fake_reply first;
};

class retryable_answer : public client_test, public ::testing::WithParamInterface<retry_row> {};

TEST_P(retryable_answer, IsRetriedWithTheSameKey) {
  auto c = make_client();
  auto order = orders::create(sample_order());
  net->respond(script({GetParam().first, reply(201)}));
  auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.attempts(), 2u);
  EXPECT_EQ(keys_sent(*net).size(), 1u);
  EXPECT_TRUE(net->requests("GET").empty());
}

INSTANTIATE_TEST_SUITE_P(
    ContractTable, retryable_answer,
    ::testing::Values(retry_row{"not_sent", failed(transport_failure::not_sent)},
                      retry_row{"unknown", failed(transport_failure::unknown)},
                      retry_row{"s500", reply(500)}, retry_row{"s502", reply(502)},
                      retry_row{"s503", reply(503)}, retry_row{"s504", reply(504)},
                      retry_row{"s408", reply(408)}, retry_row{"s302", reply(302)},
                      retry_row{"s429", problem(429, "rate-limited", {{"Retry-After", "1"}})},
                      retry_row{"in_progress", problem(409, "idempotency-request-in-progress",
                                                       {{"Retry-After", "1"}})}),
    [](const auto& info) { return std::string(info.param.name); });

struct final_row {
  const char* name;
  fake_reply answer;
  std::string error;
};

class final_answer : public client_test, public ::testing::WithParamInterface<final_row> {};

TEST_P(final_answer, IsRejectedAfterOneAttempt) {
  auto c = make_client();
  net->respond(script({GetParam().answer}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::rejected);
  EXPECT_EQ(o.attempts(), 1u);
  EXPECT_EQ(o.status(), GetParam().answer.result.response.status);
  EXPECT_EQ(o.error(), GetParam().error);
  EXPECT_TRUE(net->requests("GET").empty());
}

INSTANTIATE_TEST_SUITE_P(
    ContractTable, final_answer,
    ::testing::Values(final_row{"key_mismatch", problem(422, "idempotency-key-mismatch"),
                                "idempotency-key-mismatch"},
                      final_row{"validation", problem(400, "validation-failed"), ""},
                      final_row{"unauthenticated", problem(401, "unauthenticated"), ""},
                      final_row{"declined", problem(402, "payment-declined"), ""},
                      final_row{"not_found", problem(404, "not-found"), ""},
                      final_row{"invalid_state", problem(409, "invalid-state-transition"), ""},
                      // First attempt: nothing of ours can have executed, so it is someone
                      // else's; error() says so as the lookup's proof does (issue 42).
                      final_row{"duplicate_business_id", problem(409, "duplicate-business-id"),
                                "duplicate-business-id"}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(client_test, DuplicateBusinessIdAfterAMaybeExecutedAttemptIsSettledByLookup) {
  auto c = make_client();
  auto req = sample_order();
  net->respond(script({failed(transport_failure::unknown), problem(409, "duplicate-business-id")},
                      [&](const http_request&) {
                        return reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump());
                      }));
  auto o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_EQ(o.attempts(), 2u);
}

TEST_F(client_test, DeadlineIsNeverExceededWhileTheServerFails) {
  auto opts = options();
  opts.deadline = {.total = 10s, .lookup_reserve = 2s, .min_attempt = 100ms, .attempt_timeout = 3s};
  auto c = make_client(opts);
  // Every write times out after being sent: each one eats its whole timeout in virtual time.
  fake_reply slow = reply(201);
  slow.takes = 1h;
  net->respond(script({slow}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::unresolved);
  EXPECT_LE(clock->elapsed(), 10s);
  EXPECT_LE(o.elapsed(), 10s);
  EXPECT_GE(o.attempts(), 2u);
  EXPECT_EQ(net->requests("GET").size(), 1u);  // the lookup ran, and found nothing
  for (const auto& r : net->requests("POST"))
    EXPECT_LE(r.timeout, 3s);
}

TEST_F(client_test, HugeRetryAfterEndsTheRetriesAndGoesToTheLookup) {
  auto c = make_client();
  net->respond(script({reply(503, "", {{"Retry-After", "99999999999"}})}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::unresolved);
  EXPECT_EQ(o.attempts(), 1u);
  EXPECT_EQ(net->requests("GET").size(), 1u);
  EXPECT_LE(clock->elapsed(), options().deadline.total);
}

TEST_F(client_test, RetryAfterIsHonouredAsAMinimumWait) {
  auto opts = options();
  opts.backoff = full_jitter{.base = 1ms, .cap = 2ms};
  auto c = make_client(opts);
  net->respond(script({problem(429, "rate-limited", {{"Retry-After", "4"}}), reply(201)}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  ASSERT_FALSE(clock->waits().empty());
  EXPECT_GE(clock->waits().front(), 4s);
}

TEST_F(client_test, PreferWaitIsSizedToTheAttemptAndAtMostTen) {
  auto opts = options();
  opts.deadline.attempt_timeout = 60s;
  opts.deadline.total = 120s;
  auto c = make_client(opts);
  net->respond(script({reply(503), reply(201)}));
  (void)submit(*c, orders::create(sample_order()));
  auto posts = net->requests("POST");
  ASSERT_EQ(posts.size(), 2u);
  ASSERT_NE(header_of(posts[1], "Prefer"), nullptr);
  EXPECT_EQ(*header_of(posts[1], "Prefer"), "wait=10");
}

TEST_F(client_test, AKeysFirstAttemptAsksNoWaitForNothingCanBeBusyUnderIt) {
  // `Prefer: wait` only matters when the key is already PROCESSING on the server, which a key
  // never sent before cannot be; a retry (the first attempt's fate unknown) asks for it.
  auto c = make_client();
  net->respond(script({failed(transport_failure::unknown), reply(201)}));
  EXPECT_EQ(submit(*c, orders::create(sample_order())).kind(), outcome_kind::succeeded);
  auto posts = net->requests("POST");
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_EQ(header_of(posts[0], "Prefer"), nullptr);
  ASSERT_NE(header_of(posts[1], "Prefer"), nullptr);
  EXPECT_EQ(header_of(posts[1], "Prefer")->rfind("wait=", 0), 0u);
}

TEST_F(client_test, RespondAsyncIsAskedFromTheFirstAttemptAndWaitOnlyOnRetries) {
  auto opts = options();
  opts.prefer_async = true;
  auto c = make_client(opts);
  net->respond(script({reply(503), reply(201)}));
  EXPECT_EQ(submit(*c, orders::create(sample_order())).kind(), outcome_kind::succeeded);
  auto posts = net->requests("POST");
  ASSERT_EQ(posts.size(), 2u);
  ASSERT_NE(header_of(posts[0], "Prefer"), nullptr);
  EXPECT_EQ(*header_of(posts[0], "Prefer"), "respond-async");
  ASSERT_NE(header_of(posts[1], "Prefer"), nullptr);
  EXPECT_NE(header_of(posts[1], "Prefer")->find("wait="), std::string::npos);
  EXPECT_NE(header_of(posts[1], "Prefer")->find("respond-async"), std::string::npos);
}

TEST_F(client_test, EmptyBudgetMakesRetriesWaitInsteadOfGivingUp) {
  auto opts = options();
  opts.retry_budget = {.reserve = 1, .per_first_attempt = 0, .trickle_per_second = 0.5};
  opts.backoff = full_jitter{.base = 1ms, .cap = 1ms};
  auto c = make_client(opts);
  net->respond(script({reply(503), reply(503), reply(503), reply(503), reply(201)}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.attempts(), 5u);
  // Four retries from one token in the bucket at a trickle of one per two seconds: the loop
  // must have waited about six seconds of virtual time for tokens, not given up.
  EXPECT_GE(clock->elapsed(), 5s);
}

TEST_F(client_test, LookupFindsTheOrderWhoseEveryResponseWasLost) {
  auto opts = options();
  opts.max_failed_attempts = 3;
  auto c = make_client(opts);
  auto req = sample_order("m-lost");
  auto order = orders::create(req);
  net->respond(script({failed(transport_failure::unknown)}, [&](const http_request& r) {
    EXPECT_EQ(r.url, "http://api.test/v1/orders?merchant_order_id=m-lost");
    return reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump());
  }));
  auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_EQ(o.attempts(), 3u);
  EXPECT_EQ(nlohmann::json::parse(o.body())["id"], "ord_1");
  EXPECT_EQ(c->counters().recovered_by_lookup, 1u);
  EXPECT_EQ(c->counters().lookups, 1u);
}

// idem-cli's 1 s deadline, whose 100 ms lookup reserve is no longer than min_attempt: the write
// is handled `late` after it was sent (the client's thread busy), then eats its whole timeout,
// ending 900 ms + `late` in; a lookup finds the order.
class late_write_test : public client_test {
 protected:
  std::unique_ptr<client> client_whose_write_is_handled_late(const orders::order_request& req,
                                                             std::chrono::milliseconds late) {
    auto opts = options();
    opts.deadline = {.total = 1s, .lookup_reserve = 100ms, .min_attempt = 100ms};
    net->respond([this, req, late](const http_request& r) {
      if (r.method == "GET") return reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump());
      clock->pass(late);
      fake_reply slow = reply(201);
      slow.takes = 1h;
      return slow;
    });
    return make_client(opts);
  }
};

// The write times out where the reserve begins and is reported 2 ms later, as a real
// transport's timer and hop do. The reserve is there for the lookup; it must still run.
TEST_F(late_write_test, LookupRunsWhenTheTimedOutWriteIsReportedALittleLate) {
  auto req = sample_order("m-late");
  auto c = client_whose_write_is_handled_late(req, 2ms);
  auto o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_EQ(o.attempts(), 1u);
  ASSERT_EQ(net->requests("GET").size(), 1u);
  EXPECT_EQ(net->requests("GET")[0].timeout, 96ms);  // 98 ms left, less the 2 ms it was late
  EXPECT_LE(clock->elapsed(), 1s);
}

// Under load the client's one thread runs late: a timed-out write handled 20 ms after it was
// due says that whatever starts now will be handled about as late. The lookup that follows
// ends that much before the deadline, so that its outcome is reported by the deadline.
TEST_F(late_write_test, ALookupAfterALateTimeoutEndsAsMuchBeforeTheDeadline) {
  auto req = sample_order("m-lag");
  auto c = client_whose_write_is_handled_late(req, 20ms);
  auto o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.recovered_by_lookup());
  ASSERT_EQ(net->requests("GET").size(), 1u);
  // Handled at 920 ms with 80 ms left, less the 20 ms it was late.
  EXPECT_EQ(net->requests("GET")[0].timeout, 60ms);
}

// Handled later than the time it has left: a lookup started now would end after the deadline
// by the time its end is handled. The intent ends unresolved at once, its key kept.
TEST_F(late_write_test, NoLookupWhenTheTimeoutIsHandledLaterThanTheTimeLeft) {
  auto req = sample_order("m-lag-2");
  // Handled at 940 ms: 60 ms left, enough for a lookup had it been on time.
  auto c = client_whose_write_is_handled_late(req, 40ms);
  auto o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::unresolved);
  EXPECT_TRUE(net->requests("GET").empty());
  EXPECT_LE(clock->elapsed(), 1s);
}

// The lateness is the last end's: a lookup answered (503, asked again) says nothing about how
// busy the thread is, so the next lookup no longer counts with the write's old lateness.
TEST_F(late_write_test, AnAnsweredLookupClearsTheLateness) {
  auto opts = options();
  opts.deadline = {.total = 2s, .lookup_reserve = 1s, .min_attempt = 100ms};
  auto c = make_client(opts);
  auto req = sample_order("m-lag-3");
  int gets = 0;
  std::chrono::milliseconds second_get_at{0};
  net->respond([&](const http_request& r) {
    if (r.method == "GET") {
      if (++gets == 1) return reply(503);
      second_get_at = std::chrono::duration_cast<std::chrono::milliseconds>(clock->elapsed());
      return reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump());
    }
    clock->pass(20ms);  // the write is handled 20 ms late, at 1,020 ms
    fake_reply slow = reply(201);
    slow.takes = 1h;
    return slow;
  });
  auto o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  const auto lookups = net->requests("GET");
  ASSERT_EQ(lookups.size(), 2u);
  EXPECT_EQ(lookups[0].timeout, 960ms);  // 980 ms left, less the 20 ms the write was late
  EXPECT_EQ(lookups[1].timeout, 2s - second_get_at);  // all that is left
}

// Three writes run out together at 900 ms and are handled from 920 ms on, 1 ms apart (each
// lookup started takes the thread 1 ms): the lookups will end together as well, so each keeps
// back, besides its own lateness, one end's time per lookup already in flight.
TEST_F(late_write_test, LookupsKeepBackTheEndsOfTheLookupsAlreadyInFlight) {
  auto opts = options();
  opts.deadline = {.total = 1s, .lookup_reserve = 100ms, .min_attempt = 100ms};
  auto c = make_client(opts);
  net->respond([this](const http_request& r) {
    if (r.method == "GET") clock->pass(1ms);
    return kit::hang();
  });
  std::vector<outcome> got;
  for (const char* id : {"m-a", "m-b", "m-c"}) {
    c->async_submit(orders::create(sample_order(id)), [&](outcome o) { got.push_back(o); });
  }
  drain();
  ASSERT_EQ(net->hanging(), 3u);
  clock->pass(920ms);
  fake_reply timed_out;
  timed_out.result.ec = std::make_error_code(std::errc::timed_out);
  timed_out.result.failure = transport_failure::unknown;
  net->finish_hanging(timed_out);
  drain();
  const auto gets = net->requests("GET");
  ASSERT_EQ(gets.size(), 3u);
  // 80, 79 and 78 ms left; less 20, 21 and 22 ms late; less 0, 1 and 2 lookups in flight × 1 ms.
  EXPECT_EQ(gets[0].timeout, 60ms);
  EXPECT_EQ(gets[1].timeout, 57ms);
  EXPECT_EQ(gets[2].timeout, 54ms);
  net->finish_hanging(timed_out);
  drain();
  ASSERT_EQ(got.size(), 3u);
  for (const auto& o : got)
    EXPECT_EQ(o.kind(), outcome_kind::unresolved);
}

TEST_F(client_test, LookupFindingOtherContentRejects) {
  auto opts = options();
  opts.max_failed_attempts = 1;
  auto c = make_client(opts);
  auto req = sample_order("m-taken");
  auto theirs = req;
  theirs.amount_minor = 999;
  net->respond(script({failed(transport_failure::unknown)}, [&](const http_request&) {
    return reply(200, nlohmann::json{{"data", {order_json(theirs)}}}.dump());
  }));
  auto o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::rejected);
  EXPECT_EQ(o.error(), "duplicate-business-id");
  EXPECT_EQ(o.status(), 200);  // the lookup's own answer: nothing invented
}

TEST_F(client_test, LookupIsRetriedWhenItFails) {
  auto opts = options();
  opts.max_failed_attempts = 1;
  auto c = make_client(opts);
  auto req = sample_order();
  auto gets = std::make_shared<int>(0);
  net->respond(script({failed(transport_failure::unknown)}, [&, gets](const http_request&) {
    if ((*gets)++ < 2) return reply(503);
    return reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump());
  }));
  auto o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_EQ(net->requests("GET").size(), 3u);
}

TEST_F(client_test, PaymentAndCancelLookupsFindTheirResults) {
  auto opts = options();
  opts.max_failed_attempts = 1;
  auto c = make_client(opts);
  auto req = sample_order();
  auto paid = order_json(
      req, "PAID",
      {{{"id", "pay_1"}, {"amount_minor", 1500}, {"currency", "EUR"}, {"status", "CAPTURED"}}});
  net->respond(script({failed(transport_failure::unknown)}, [&](const http_request& r) {
    EXPECT_EQ(r.url, "http://api.test/v1/orders/ord_1");
    return reply(200, paid.dump());
  }));
  auto pay = submit(*c, orders::pay("ord_1", {.amount_minor = 1500, .currency = "EUR"}));
  EXPECT_EQ(pay.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(pay.recovered_by_lookup());
  auto other_amount = submit(*c, orders::pay("ord_1", {.amount_minor = 10, .currency = "EUR"}));
  EXPECT_EQ(other_amount.kind(), outcome_kind::unresolved);
  auto cancel = submit(*c, orders::cancel("ord_1"));
  EXPECT_EQ(cancel.kind(), outcome_kind::unresolved);  // PAID is not CANCELLED
  paid["status"] = "CANCELLED";
  auto cancel2 = submit(*c, orders::cancel("ord_1", "customer asked"));
  EXPECT_EQ(cancel2.kind(), outcome_kind::succeeded);
}

TEST_F(client_test, NotSentWhenTheServerIsDeadThroughout) {
  auto c = make_client();
  net->respond([](const http_request&) { return failed(transport_failure::not_sent); });
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::not_sent);
  EXPECT_GE(o.attempts(), 2u);
  EXPECT_TRUE(net->requests("GET").empty());  // nothing happened: nothing to look up
  EXPECT_EQ(o.last_transport_error(), std::make_error_code(std::errc::connection_refused));
  EXPECT_LE(clock->elapsed(), options().deadline.total);
}

TEST_F(client_test, InProgressWaitsAndSucceedsWithoutUsingAttempts) {
  auto opts = options();
  opts.max_failed_attempts = 1;
  auto c = make_client(opts);
  auto busy = problem(409, "idempotency-request-in-progress", {{"Retry-After", "1"}});
  auto limited = problem(429, "rate-limited", {{"Retry-After", "1"}});
  net->respond(script({busy, busy, limited, busy, busy, reply(201)}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.attempts(), 6u);
  EXPECT_TRUE(net->requests("GET").empty());
}

TEST_F(client_test, FailedAttemptCapEndsWritesAndLooksUp) {
  auto opts = options();
  opts.max_failed_attempts = 2;
  auto c = make_client(opts);
  net->respond(script({reply(500)}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::unresolved);
  EXPECT_EQ(o.attempts(), 2u);
  EXPECT_EQ(o.status(), 500);
  EXPECT_EQ(net->requests("GET").size(), 1u);
}

TEST_F(client_test, KeyFirstSentUnderOtherCredentialsIsRefused) {
  auto store = std::make_shared<memory_intent_store>();
  auto opts = options();
  opts.store = store;
  opts.max_failed_attempts = 1;
  auto a = make_client(opts);
  auto order = orders::create(sample_order());
  net->respond(script({reply(503)}));
  EXPECT_EQ(submit(*a, order).kind(), outcome_kind::unresolved);
  const auto sent = net->requests().size();

  opts.credentials = bearer_token{"token-b"};
  auto b = make_client(opts);
  auto o = submit(*b, order);
  EXPECT_EQ(o.kind(), outcome_kind::rejected);
  EXPECT_EQ(o.error(), "foreign-credentials");
  EXPECT_EQ(o.attempts(), 0u);
  EXPECT_EQ(net->requests().size(), sent);  // nothing was sent under the other token
  // Resuming under the original credentials is fine.
  net->respond(script({reply(201)}));
  EXPECT_EQ(submit(*a, order).kind(), outcome_kind::succeeded);
}

TEST_F(client_test, StoreSeesEveryStateChange) {
  auto store = std::make_shared<memory_intent_store>();
  auto opts = options();
  opts.store = store;
  opts.max_failed_attempts = 1;
  auto c = make_client(opts);
  auto open = orders::create(sample_order("m-open"));
  auto done = orders::create(sample_order("m-done"));
  net->respond(script({reply(503)}));
  EXPECT_EQ(submit(*c, open).kind(), outcome_kind::unresolved);
  net->respond(script({reply(201)}));
  EXPECT_EQ(submit(*c, done).kind(), outcome_kind::succeeded);
  auto rec = store->find(open.key());
  ASSERT_TRUE(rec);
  EXPECT_EQ(rec->attempts, 1u);
  EXPECT_EQ(rec->last_class, attempt_class::unknown);
  EXPECT_EQ(rec->last_outcome, outcome_kind::unresolved);
  EXPECT_TRUE(rec->is_open());
  EXPECT_EQ(rec->principal, c->principal());
  EXPECT_EQ(rec->principal.size(), 64u);  // a SHA-256 in hex, never the token
  EXPECT_EQ(rec->principal.find("token"), std::string::npos);
  EXPECT_EQ(store->find(done.key())->state, intent_state::succeeded);
  auto still_open = store->open_intents();
  ASSERT_EQ(still_open.size(), 1u);
  EXPECT_EQ(still_open[0].what.key(), open.key());
  EXPECT_TRUE(still_open[0].what.same_request(open));
}

}  // namespace
}  // namespace idem::test
