// The client against backends other than idem-mock-server, in virtual time: every profile's
// in-progress answers (never `rejected`), the declarative lookup's verdicts with the real status,
// and requests as real apps send them (credentials, key header, extra headers, a decorator,
// per-submission options, the deciding answer's headers, observer events).
#include <boost/asio/deferred.hpp>
#include <set>

#include "idem/transport_error.hpp"
#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

using idem::kit::failed;
using idem::kit::problem;
using idem::kit::reply;

const std::string express_in_progress =
    "<!DOCTYPE html><html><body><pre>Error: A previous request is still in progress for this "
    "key.</pre></body></html>";

nlohmann::json list_of(nlohmann::json order) {
  return {{"data", nlohmann::json::array({std::move(order)})}};
}

server_profile profile_of(server_profile::family f) {
  switch (f) {
    case server_profile::family::stripe:
      return server_profile::stripe();
    case server_profile::family::generic:
      return server_profile::generic();
    case server_profile::family::ietf:
      break;
  }
  return server_profile::ietf();
}

class client_backend_test : public client_test,
                            public ::testing::WithParamInterface<server_profile::family> {
 protected:
  client_options profiled() const {
    auto o = options();
    o.profile = profile_of(GetParam());
    return o;
  }
};

TEST_P(client_backend_test, ABare409AfterALostAnswerIsWaitedOutThenSettledByTheLookup) {
  // The first attempt executed but its answer was lost; every retry meets the first request
  // "still in progress" (a bare 409 with an HTML body): the order exists, and the lookup says so.
  auto c = make_client(profiled());
  const auto req = sample_order();
  net->respond(
      script({failed(transport_failure::unknown), reply(409, express_in_progress)},
             [&](const http_request&) { return reply(200, list_of(order_json(req)).dump()); }));
  const outcome o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.recovered_by_lookup());
  EXPECT_GT(net->requests("POST").size(), 2u);
}

TEST_P(client_backend_test, ABare409OnTheFirstAttemptIsNeverARejection) {
  // libcurl re-sends on a dead reused connection, so even a first attempt can meet itself.
  auto c = make_client(profiled());
  net->respond(script({reply(409), reply(409, express_in_progress), reply(201, R"({"id":"o"})")}));
  const outcome o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.attempts(), 3u);
}

TEST_P(client_backend_test, InProgressWaitsSpendNoFailedAttempt) {
  auto o = profiled();
  o.max_failed_attempts = 1;
  auto c = make_client(o);
  net->respond(script({reply(409), reply(425), reply(409), reply(201)}));
  EXPECT_EQ(submit(*c, orders::create(sample_order())).kind(), outcome_kind::succeeded);
}

TEST_P(client_backend_test, A409ThatNeverEndsIsUnresolvedWhenTheLookupFindsNothing) {
  auto c = make_client(profiled());
  net->respond(script({reply(409)}));
  const outcome o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::unresolved);
  EXPECT_EQ(o.status(), 409);
}

INSTANTIATE_TEST_SUITE_P(Profiles, client_backend_test,
                         ::testing::Values(server_profile::family::ietf,
                                           server_profile::family::stripe,
                                           server_profile::family::generic),
                         [](const auto& info) {
                           return std::string(profile_of(info.param).name());
                         });

TEST_F(client_test, TheLookupRejectsOnlyWhenTheServersRecordProvesAnotherIntentWithItsRealStatus) {
  auto c = make_client();
  const auto req = sample_order();
  auto theirs = order_json(req);
  theirs["amount_minor"] = 999;
  net->respond(script({failed(transport_failure::unknown)}, [&](const http_request&) {
    return reply(200, list_of(theirs).dump(), {{"X-Request-Id", "req-9"}});
  }));
  const outcome o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::rejected);
  EXPECT_EQ(o.status(), 200);  // what the server sent, not an invented 409
  EXPECT_EQ(o.problem_type(), "");
  EXPECT_EQ(o.error(), "duplicate-business-id");
  EXPECT_EQ(nlohmann::json::parse(o.body())["amount_minor"], 999);
  ASSERT_NE(o.header("x-request-id"), nullptr);
  EXPECT_EQ(*o.header("x-request-id"), "req-9");
}

TEST_F(client_test, ARecordMissingFieldsIsOursNotAConflict) {
  auto c = make_client();
  const auto req = sample_order();
  const nlohmann::json sparse = {{"id", "ord_1"}, {"merchant_order_id", req.merchant_order_id}};
  net->respond(script({failed(transport_failure::unknown)},
                      [&](const http_request&) { return reply(200, list_of(sparse).dump()); }));
  const outcome o = submit(*c, orders::create(req));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.recovered_by_lookup());
}

TEST_F(client_test, ALookupThatCannotBeAskedLeavesTheIntentUnresolved) {
  auto c = make_client();
  net->respond(script({failed(transport_failure::unknown)}));
  auto i =
      intent::create({"POST", "/v1/things"}, {{"ref", "r-1"}},
                     business_lookup{.url = "/v1/things/{missing_field}", .business_id = "r-1"});
  EXPECT_EQ(submit(*c, i).kind(), outcome_kind::unresolved);
  EXPECT_TRUE(net->requests("GET").empty());
}

TEST_F(client_test, ACustomLookupFindsTheResultByItsOwnRules) {
  auto o = options();
  o.lookup_predicates["paid"] = [](const nlohmann::json&, const nlohmann::json& record) {
    return record.value("state", "") == "paid" ? record_match::ours : record_match::unrelated;
  };
  auto c = make_client(o);
  auto i =
      intent::create({"POST", "/v2/invoices"}, {{"invoice_ref", "inv-7"}, {"total", 10}},
                     business_lookup{.url = "/v2/invoices/search?ref={invoice_ref}",
                                     .business_id = "inv-7",
                                     .select = "/results",
                                     .identify = "/ref",
                                     .match = {{.pointer = "/amount", .payload_pointer = "/total"}},
                                     .predicate = "paid"});
  net->respond(script({failed(transport_failure::unknown)}, [](const http_request& r) {
    EXPECT_EQ(r.url, "http://api.test/v2/invoices/search?ref=inv-7");
    return reply(200, R"({"results":[{"ref":"inv-7","amount":10,"state":"paid"}]})");
  }));
  const outcome out = submit(*c, i);
  EXPECT_EQ(out.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(out.recovered_by_lookup());
}

TEST_F(client_test, KeyMisuseAnsweredWith417IsAClientBugUnderGeneric) {
  auto o = options();
  o.profile = server_profile::generic();
  auto c = make_client(o);
  net->respond(script({reply(417, "Misuse of the idempotency key. Please check your request.")}));
  const outcome out = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(out.kind(), outcome_kind::rejected);
  EXPECT_EQ(out.error(), "idempotency-key-misuse");
  EXPECT_EQ(out.status(), 417);
}

TEST_F(client_test, TheDecidingAnswersHeadersAreInTheOutcome) {
  auto c = make_client();
  net->respond(script({reply(201, R"({"id":"ord_1"})",
                             {{"Location", "/v1/orders/ord_1"}, {"Request-Id", "req-1"}})}));
  const outcome o = submit(*c, orders::create(sample_order()));
  ASSERT_NE(o.header("location"), nullptr);
  EXPECT_EQ(*o.header("location"), "/v1/orders/ord_1");
  EXPECT_EQ(*o.header("Request-Id"), "req-1");
  EXPECT_EQ(o.header("X-Nope"), nullptr);
}

TEST_F(client_test, RequestsCarryTheAppsHeadersKeyHeaderAndDecorations) {
  auto o = options();
  o.credentials = credentials::in_header("X-Api-Key", "k-1");
  o.key_header = "X-Idempotency-Key";
  o.headers = {{"Api-Version", "2026-01-01"}};
  int n = 0;
  o.decorate = [&n](http_request& r) {
    r.headers.emplace_back("traceparent", std::to_string(++n));
  };
  auto c = make_client(o);
  net->respond(script({reply(503), reply(201)}));
  auto i = orders::create(sample_order());
  auto got = std::optional<outcome>();
  c->async_submit(i, submit_options{.headers = {{"X-Tenant", "t-9"}}},
                  [&](outcome out) { got = std::move(out); });
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
  const auto posts = net->requests("POST");
  ASSERT_EQ(posts.size(), 2u);
  std::set<std::string> traces;
  for (const auto& r : posts) {
    EXPECT_EQ(*header_of(r, "X-Api-Key"), "k-1");
    EXPECT_EQ(header_of(r, "Authorization"), nullptr);
    EXPECT_EQ(*header_of(r, "X-Idempotency-Key"), i.key().str());
    EXPECT_EQ(header_of(r, "Idempotency-Key"), nullptr);
    EXPECT_EQ(*header_of(r, "Api-Version"), "2026-01-01");
    EXPECT_EQ(*header_of(r, "X-Tenant"), "t-9");
    traces.insert(*header_of(r, "traceparent"));
  }
  EXPECT_EQ(traces.size(), 2u);  // one per attempt
}

TEST_F(client_test, ARotatingTokenIsAskedForEveryRequestAndTheKeyStaysWithThePrincipal) {
  auto store = std::make_shared<memory_intent_store>();
  int version = 0;
  auto o = one_attempt_with(store);
  o.credentials = credentials::from_provider(
      [&version] { return "Bearer tok-" + std::to_string(++version); }, "user-42");
  auto c = make_client(o);
  net->respond(script({failed(transport_failure::unknown)}));
  auto i = orders::create(sample_order());
  EXPECT_EQ(submit(*c, i).kind(), outcome_kind::unresolved);
  // After a token refresh (a new client, a new token), the same principal resumes the key.
  net->respond(script({reply(201)}));
  auto c2 = make_client(o);
  EXPECT_EQ(submit(*c2, i).kind(), outcome_kind::succeeded);
  std::set<std::string> tokens;
  for (const auto& r : net->requests("POST"))
    tokens.insert(*header_of(r, "Authorization"));
  EXPECT_EQ(tokens.size(), net->requests("POST").size());
  EXPECT_EQ(c->principal(), c2->principal());
}

TEST_F(client_test, WithoutAPrincipalIdANewTokenIsAnotherPrincipal) {
  auto store = std::make_shared<memory_intent_store>();
  auto c = make_client(one_attempt_with(store));
  net->respond(script({failed(transport_failure::unknown)}));
  auto i = orders::create(sample_order());
  EXPECT_EQ(submit(*c, i).kind(), outcome_kind::unresolved);
  auto o = one_attempt_with(store);
  o.credentials = bearer_token{"token-refreshed"};
  auto c2 = make_client(o);
  EXPECT_EQ(submit(*c2, i).error(), "foreign-credentials");
}

TEST_F(client_test, ABearerTokensPrincipalIsTheSameAsBefore) {
  // Journals written before other credentials existed hold this fingerprint.
  auto c = make_client();
  // SHA-256 of "bearer\ntoken-a".
  EXPECT_EQ(c->principal(), "b1f5871159f8823642a23aaad9170d9cbe84231398605af3422af7e8733401c2");
}

TEST_F(client_test, ASubmissionsOwnDeadlineReplacesTheClients) {
  auto c = make_client();
  net->respond(script({reply(503)}));
  const auto t0 = clock->now();
  std::optional<outcome> got;
  c->async_submit(
      orders::create(sample_order()),
      submit_options{.deadline = deadline_policy{.total = std::chrono::seconds{5},
                                                 .lookup_reserve = std::chrono::seconds{1},
                                                 .attempt_timeout = std::chrono::seconds{1}}},
      [&](outcome o) { got = std::move(o); });
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::unresolved);
  EXPECT_LE(clock->now() - t0, std::chrono::seconds{5});
}

TEST_F(client_test, ARequestThatCannotBeSentAsGivenEndsAtOnceNotSent) {
  auto c = make_client();
  fake_reply bad;
  bad.result.failure = transport_failure::not_sent;
  bad.result.ec = transport_errc::invalid_request;
  net->respond(script({bad}));
  const outcome o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::not_sent);
  EXPECT_EQ(o.attempts(), 1u);
  EXPECT_EQ(o.last_transport_error(), transport_errc::invalid_request);
}

// Retrying would meet the same certificate until the deadline; the first refusal is the answer
// (and the reason stays "certificate", not the timeout that would cut the last retry).
TEST_F(client_test, ARejectedCertificateEndsAtOnceNotSent) {
  auto c = make_client();
  fake_reply refused;
  refused.result.failure = transport_failure::not_sent;
  refused.result.ec = transport_errc::certificate_rejected;
  net->respond(script({refused, reply(201)}));
  const outcome o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::not_sent);
  EXPECT_EQ(o.attempts(), 1u);
  EXPECT_EQ(o.last_transport_error(), transport_errc::certificate_rejected);
}

// A handshake that broke off (a reset in the middle, a server restarting) may heal.
TEST_F(client_test, AFailedHandshakeIsRetriedWithTheSameKey) {
  auto c = make_client();
  fake_reply broken;
  broken.result.failure = transport_failure::not_sent;
  broken.result.ec = transport_errc::tls_failed;
  net->respond(script({broken, reply(201)}));
  const outcome o = submit(*c, orders::create(sample_order()));
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_EQ(o.attempts(), 2u);
}

TEST_F(client_test, TheDefaultTokenIsDeferredOnThisBoost) {
  auto c = make_client();
  net->respond(script({reply(201)}));
  auto op = c->async_submit(orders::create(sample_order()));  // nothing runs yet
  drain();
  EXPECT_TRUE(net->requests().empty());
  std::optional<outcome> got;
  std::move(op)([&](outcome o) { got = std::move(o); });
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
}

}  // namespace
}  // namespace idem::test
