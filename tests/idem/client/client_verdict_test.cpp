// A verdict is a proof (contract section 8), in virtual time: once an attempt of an intent may
// have executed, a later answer that is not a replay under its key proves nothing about that
// execution. It stops the writes and goes to the lookup: found -> succeeded, anything else ->
// unresolved with the key kept, never rejected. And a key the server may have forgotten is
// written again only after the lookup proved the intent absent, before every write.

#include "idem/memory_intent_store.hpp"
#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

using idem::kit::failed;
using idem::kit::problem;
using idem::kit::reply;

fake_reply verdict_found_order(const orders::order_request& req) {
  return reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump());
}

struct verdict_after_row {
  const char* name;
  fake_reply answer;
};

class answer_after_a_maybe_executed_attempt
    : public client_test,
      public ::testing::WithParamInterface<verdict_after_row> {
 protected:
  client_options with_store() {
    auto o = options();
    o.store = store;
    return o;
  }
  std::shared_ptr<memory_intent_store> store = std::make_shared<memory_intent_store>();
};

TEST_P(answer_after_a_maybe_executed_attempt, GoesToTheLookupWhichFindsTheOrder) {
  auto c = make_client(with_store());
  const auto req = sample_order();
  net->respond(script({failed(transport_failure::unknown), GetParam().answer},
                      [&](const http_request&) { return verdict_found_order(req); }));
  const auto order = orders::create(req);
  auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << to_string(o.kind());
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_EQ(net->requests("POST").size(), 2u) << "the answer must stop the writes";
  EXPECT_FALSE(net->requests("GET").empty());
}

TEST_P(answer_after_a_maybe_executed_attempt, IsUnresolvedNeverRejectedWhenTheLookupFindsNothing) {
  auto c = make_client(with_store());
  net->respond(script({failed(transport_failure::unknown), GetParam().answer}));
  const auto order = orders::create(sample_order());
  auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::unresolved) << to_string(o.kind());
  EXPECT_EQ(o.status(), GetParam().answer.result.response.status);
  EXPECT_EQ(net->requests("POST").size(), 2u);
  auto record = store->find(order.key());
  ASSERT_TRUE(record.has_value());
  EXPECT_TRUE(record->is_open()) << "the journal must keep the intent open, with its key";
  EXPECT_TRUE(record->maybe_sent());
}

INSTANTIATE_TEST_SUITE_P(
    ProvesNothing, answer_after_a_maybe_executed_attempt,
    ::testing::Values(
        verdict_after_row{"s400_validation", problem(400, "validation-failed")},
        verdict_after_row{"s401_token_refresh", problem(401, "unauthenticated")},
        verdict_after_row{"s402_declined", problem(402, "payment-declined")},
        verdict_after_row{"s403_gateway", reply(403, "<html>Forbidden</html>")},
        verdict_after_row{"s404_gateway", reply(404, "<html>Not Found</html>")},
        verdict_after_row{"s405", reply(405)},
        verdict_after_row{"s413", problem(413, "payload-too-large")},
        verdict_after_row{"s422_plain", reply(422, R"({"error":"unprocessable"})")},
        verdict_after_row{"s422_key_mismatch", problem(422, "idempotency-key-mismatch")},
        verdict_after_row{"s409_invalid_state", problem(409, "invalid-state-transition")},
        verdict_after_row{"s409_duplicate", problem(409, "duplicate-business-id")}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(client_test, ARejectionReplayedUnderTheKeyAfterAMaybeExecutedAttemptIsFinal) {
  // A replay is the server's record of this key's one execution: proof.
  auto c = make_client();
  net->respond(script({failed(transport_failure::unknown),
                       problem(400, "validation-failed", {{"Idempotent-Replayed", "true"}})}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::rejected) << to_string(o.kind());
  EXPECT_TRUE(net->requests("GET").empty());
}

TEST_F(client_test, AKeyMismatchAfterAMaybeExecutedAttemptStillSaysSo) {
  // Not rejected (the earlier attempt may have executed), but the client bug is not hidden.
  auto c = make_client();
  net->respond(
      script({failed(transport_failure::unknown), problem(422, "idempotency-key-mismatch")}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::unresolved) << to_string(o.kind());
  EXPECT_EQ(o.error(), "idempotency-key-mismatch");
}

class duplicates_observer : public observer {
 public:
  void on_lookup_finished(const trace::lookup_finished& e) override {
    if (e.verdict == lookup_verdict::found) found = e.records;
  }
  std::uint32_t found = 0;
};

TEST_F(client_test, ALookupThatFindsTwoRecordsOfTheIntentSaysSo) {
  // A backend that executed the intent twice: succeeded, but never silently.
  auto o_ = options();
  auto seen = std::make_shared<duplicates_observer>();
  o_.observer = seen;
  o_.max_failed_attempts = 1;
  auto c = make_client(o_);
  const auto req = sample_order();
  net->respond(script({failed(transport_failure::unknown)}, [&](const http_request&) {
    return reply(200, nlohmann::json{{"data", {order_json(req), order_json(req)}}}.dump());
  }));
  auto o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << to_string(o.kind());
  EXPECT_EQ(o.matching_records(), 2u);
  EXPECT_EQ(seen->found, 2u);
}

TEST_F(client_test, AKeyIsNeverSentUnderAProvidersValueOfAnotherPrincipal) {
  // A provider without a principal id is fingerprinted by its value: once it gives another
  // principal's, the next write would be an unrelated request on the server (a second
  // execution). It does not go; the lookup may still settle the intent.
  auto o_ = options();
  auto calls = std::make_shared<int>(0);
  o_.credentials = credentials::from_provider(
      [calls] { return std::string(++*calls <= 2 ? "Bearer token-a" : "Bearer token-z"); }, "");
  auto c = make_client(o_);
  net->respond(script({failed(transport_failure::unknown), reply(201, R"({"id":"ord_1"})")}));
  auto o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(net->requests("POST").size(), 1u) << "a write went out under another principal";
  EXPECT_EQ(o.kind(), outcome_kind::unresolved) << to_string(o.kind());
  EXPECT_EQ(o.error(), "foreign-credentials");
}

// ---- key retention: only a proven absence licenses a write of a key the server may have
// forgotten ----

class forgotten_key_test : public client_test {
 protected:
  // Leaves `order` open with one attempt that may have executed, then moves both clocks on.
  void sent_and_lost_long_ago(const intent& order, std::chrono::hours ago) {
    auto first = make_client(one_attempt_with(store));
    net->respond(script({failed(transport_failure::unknown)},
                        [](const http_request&) { return reply(503); }));
    auto o = submit(*first, order);
    ASSERT_EQ(o.kind(), outcome_kind::unresolved);
    clock->advance(ago);
    // The later client gets a transport of its own: its requests alone are counted.
    net = std::make_shared<fake_transport>(io.get_executor(), clock);
  }
  std::shared_ptr<memory_intent_store> store = std::make_shared<memory_intent_store>();
};

struct verdict_lookup_row {
  const char* name;
  fake_reply answer;
};

class forgotten_key_lookup_answer : public forgotten_key_test,
                                    public ::testing::WithParamInterface<verdict_lookup_row> {};

TEST_P(forgotten_key_lookup_answer, ThatProvesNothingLicensesNoWrite) {
  const auto order = orders::create(sample_order());
  sent_and_lost_long_ago(order, std::chrono::hours{25});
  if (HasFatalFailure()) return;
  auto later = make_client([&] {
    auto o = options();
    o.store = store;
    return o;
  }());
  net->respond(script({reply(201, R"({"id":"ord_2"})")},
                      [&](const http_request&) { return GetParam().answer; }));
  auto o = submit(*later, order);
  EXPECT_TRUE(net->requests("POST").empty()) << "a key past retention was re-sent blind";
  EXPECT_FALSE(net->requests("GET").empty());
  EXPECT_EQ(o.kind(), outcome_kind::unresolved) << to_string(o.kind());
}

INSTANTIATE_TEST_SUITE_P(
    Lookup, forgotten_key_lookup_answer,
    ::testing::Values(verdict_lookup_row{"s401", problem(401, "unauthenticated")},
                      verdict_lookup_row{"s403", reply(403)},
                      verdict_lookup_row{"s400", reply(400)},
                      verdict_lookup_row{"s302", reply(302, "", {{"Location", "/login"}})},
                      verdict_lookup_row{"s204", reply(204)},
                      verdict_lookup_row{"s200_unreadable",
                                         reply(200, "<html>maintenance</html>")}),
    [](const auto& info) { return std::string(info.param.name); });

TEST_F(forgotten_key_test, AProvenAbsenceLicensesTheWrite) {
  const auto order = orders::create(sample_order());
  sent_and_lost_long_ago(order, std::chrono::hours{25});
  if (HasFatalFailure()) return;
  auto o_ = options();
  o_.store = store;
  auto later = make_client(o_);
  net->respond(script({reply(201, R"({"id":"ord_2"})")},
                      [](const http_request&) { return reply(200, R"({"data":[]})"); }));
  auto o = submit(*later, order);
  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << to_string(o.kind());
  EXPECT_EQ(net->requests("POST").size(), 1u);
}

TEST_F(client_test, TheSameIntentSubmittedAgainADayLaterIsAnsweredFromTheStoreNotSentBlind) {
  // The default memory store forgot a final intent's details after an hour; the server keeps
  // its key 24 h. Submitted again 25 h later (after other intents moved the store's clock on),
  // it must not go out as a new request: the server may have forgotten the key and would
  // execute it again, or answer 409 for our own order.
  auto c = make_client();
  net->respond(script({reply(201, R"({"id":"ord_1"})"), problem(409, "duplicate-business-id")}));
  const auto order = orders::create(sample_order("m-once"));
  ASSERT_EQ(submit(*c, order).kind(), outcome_kind::succeeded);
  clock->advance(std::chrono::hours{25});
  net->respond(script({reply(201, R"({"id":"ord_2"})")}));
  ASSERT_EQ(submit(*c, orders::create(sample_order("m-other"))).kind(), outcome_kind::succeeded);
  const auto posts_before = net->requests("POST").size();
  auto again = submit(*c, order);
  EXPECT_EQ(net->requests("POST").size(), posts_before) << "the intent was sent again, blind";
  EXPECT_EQ(again.kind(), outcome_kind::succeeded) << to_string(again.kind());
}

TEST_F(client_test, AKeyThatAgesPastRetentionWhileOfflineIsLookedUpBeforeItsNextWrite) {
  // Attempt 1 may have executed; the device goes offline for 25 h (the deadline paused); back
  // online, the next write would go under a key the server may have forgotten.
  auto o_ = options();
  o_.lifecycle.pause_deadline_while_offline = true;
  o_.lifecycle.resume_spread = std::chrono::milliseconds{0};
  auto c = make_client(o_);
  const auto req = sample_order();
  int posts = 0;
  net->respond([&](const http_request& r) {
    if (r.method == "GET") return verdict_found_order(req);
    if (++posts == 1) {
      c->set_network(network_status::offline);
      return failed(transport_failure::unknown);
    }
    return reply(201, R"({"id":"ord_2"})");
  });
  std::optional<outcome> got;
  c->async_submit(orders::create(req), [&](outcome o) { got = std::move(o); });
  drain();
  ASSERT_FALSE(got.has_value()) << "the flight should wait for the network";
  clock->advance(std::chrono::hours{25});
  c->set_network(network_status::online);
  drain();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(posts, 1) << "the second write went out under a key past retention, unlooked-up";
  EXPECT_EQ(got->kind(), outcome_kind::succeeded) << to_string(got->kind());
  EXPECT_TRUE(got->recovered_by_lookup());
}

TEST_F(client_test, ABackoffThatOutlivesTheRetentionMarginIsLookedUpBeforeTheNextWrite) {
  // A server that asks to wait longer than the key's remaining retention: the next write is
  // preceded by the lookup (here the deadline is long enough to wait that long).
  auto o_ = options();
  o_.deadline = {.total = std::chrono::hours{48},
                 .lookup_reserve = 3s,
                 .min_attempt = 100ms,
                 .attempt_timeout = 10s};
  auto c = make_client(o_);
  const auto req = sample_order();
  net->respond(script({problem(503, "unavailable", {{"Retry-After", std::to_string(25 * 3600)}}),
                       reply(201, R"({"id":"ord_2"})")},
                      [&](const http_request&) { return verdict_found_order(req); }));
  auto o = submit(*c, orders::create(req));
  EXPECT_EQ(net->requests("POST").size(), 1u);
  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << to_string(o.kind());
  EXPECT_TRUE(o.recovered_by_lookup());
}

}  // namespace
}  // namespace idem::test
