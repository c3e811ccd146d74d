// The idempotency protocol of contract sections 2-3 over real sockets: replay, key scope,
// fingerprint, what is (not) stored, and exactly-once execution under concurrent duplicates.
#include <gtest/gtest.h>

#include <chrono>
#include <latch>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

// Sends the same POST from `n` threads at once, each on its own connection, and returns the
// answers in thread order.
std::vector<http_result> post_concurrently(std::uint16_t port, int n, const std::string& target,
                                           const std::vector<std::string>& keys,
                                           const std::string& body) {
  std::vector<http_result> results(static_cast<std::size_t>(n));
  std::latch start{n};
  std::vector<std::thread> threads;
  for (int i = 0; i < n; ++i) {
    threads.emplace_back([&, i] {
      http_client http{port};
      // Connected before the start line, so that the POSTs leave together.
      auto warm_up = http.send("GET", "/healthz");
      start.arrive_and_wait();
      const auto& key = keys[static_cast<std::size_t>(i) % keys.size()];
      results[static_cast<std::size_t>(i)] =
          http.send("POST", target,
                    {{"Authorization", "Bearer tenant-a"}, {"Idempotency-Key", key}}, body, 20s);
    });
  }
  for (auto& t : threads) {
    t.join();
  }
  return results;
}

class idempotency_protocol_test : public ::testing::Test {
 protected:
  running_server server;
  api_client api{server.port()};
  api_client other_tenant{server.port(), "tenant-b"};
  http_client http{server.port()};

  http_result post_text(const std::string& key, const std::string& body,
                        const mock::header_list& extra = {}) {
    mock::header_list headers{{"Authorization", "Bearer tenant-a"}, {"Idempotency-Key", key}};
    headers.insert(headers.end(), extra.begin(), extra.end());
    return http.send("POST", "/v1/orders", headers, body);
  }
};

TEST_F(idempotency_protocol_test, FirstAnswerIsNotReplayedAndReplayIsIdentical) {
  auto first = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(first, 201));
  EXPECT_TRUE(replayed_header_is(first, "false"));
  ASSERT_TRUE(first.res.header("Location"));

  auto replay = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(replay, 201));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(replay.res.body, first.res.body);
  EXPECT_EQ(replay.res.header("Location"), first.res.header("Location"));
  EXPECT_EQ(replay.res.header("Content-Type"), first.res.header("Content-Type"));
  auto stats = api.stats();
  EXPECT_EQ(stats["orders"], 1);
  EXPECT_EQ(stats["replays"], 1);
}

TEST_F(idempotency_protocol_test, DeclinedPaymentIsStoredAndReplayed) {
  const auto id = api.create_order("m-1", "k-1");
  const auto target = "/v1/orders/" + id + "/payments";
  auto first = api.post(target, "p-1", payment_body(1500, "card_declined"));
  ASSERT_TRUE(has_status(first, 402));
  EXPECT_TRUE(replayed_header_is(first, "false"));
  auto replay = api.post(target, "p-1", payment_body(1500, "card_declined"));
  ASSERT_TRUE(has_status(replay, 402));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(replay.res.body, first.res.body);
}

TEST_F(idempotency_protocol_test, NotFoundOnPostIsStoredAndReplayed) {
  auto first = api.post("/v1/orders/ord_missing/payments", "p-1", payment_body());
  ASSERT_TRUE(has_status(first, 404));
  EXPECT_TRUE(replayed_header_is(first, "false"));
  auto replay = api.post("/v1/orders/ord_missing/payments", "p-1", payment_body());
  ASSERT_TRUE(has_status(replay, 404));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(replay.res.body, first.res.body);
}

TEST_F(idempotency_protocol_test, DuplicateBusinessIdIsStoredAndReplayedWithLocation) {
  const auto id = api.create_order("m-1", "k-1");
  auto first = api.post("/v1/orders", "k-2", order_body("m-1"));
  ASSERT_TRUE(is_problem(first, 409, "duplicate-business-id"));
  EXPECT_TRUE(replayed_header_is(first, "false"));
  auto replay = api.post("/v1/orders", "k-2", order_body("m-1"));
  ASSERT_TRUE(is_problem(replay, 409, "duplicate-business-id"));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(replay.res.body, first.res.body);
  EXPECT_EQ(replay.res.header("Location").value_or(""), "/v1/orders/" + id);
}

TEST_F(idempotency_protocol_test, UnstoredAnswersCarryNoReplayedHeader) {
  ASSERT_TRUE(has_status(api.post("/v1/orders", "k-1", order_body("m-1")), 201));
  auto unauthenticated =
      http.send("POST", "/v1/orders", {{"Idempotency-Key", "k-1"}}, order_body("m-1").dump());
  auto key_missing = api.post("/v1/orders", "", order_body("m-1"));
  auto invalid = api.post("/v1/orders", "k-2", json{{"merchant_order_id", "m-2"}});
  auto mismatch = api.post("/v1/orders", "k-1", order_body("m-other"));
  auto too_large_body = order_body("m-3");
  too_large_body["padding"] = std::string(70'000, 'x');
  auto too_large = api.post("/v1/orders", "k-3", too_large_body);
  ASSERT_NO_FATAL_FAILURE(
      api.set_faults(only(on_create("status_before_processing", {{"status", 503}}))));
  auto injected = api.post("/v1/orders", "k-1", order_body("m-1"));

  const std::pair<const http_result*, int> answers[] = {
      {&unauthenticated, 401}, {&key_missing, 400}, {&invalid, 400},
      {&mismatch, 422},        {&too_large, 413},   {&injected, 503}};
  for (const auto& [r, status] : answers) {
    EXPECT_TRUE(has_status(*r, status));
    EXPECT_TRUE(has_no_replayed_header(*r));
  }
}

TEST_F(idempotency_protocol_test, SameKeyUnderAnotherPrincipalExecutesIndependently) {
  auto a = api.post("/v1/orders", "k-1", order_body("m-1"));
  auto b = other_tenant.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(a, 201));
  ASSERT_TRUE(has_status(b, 201));
  EXPECT_TRUE(replayed_header_is(b, "false"));
  EXPECT_NE(a.res.json()["id"], b.res.json()["id"]);
  EXPECT_EQ(api.stats()["orders"], 2);
}

TEST_F(idempotency_protocol_test, SameKeyUnderAnotherOperationExecutesIndependently) {
  auto created = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(created, 201));
  const auto id = created.res.json()["id"].get<std::string>();
  auto paid = api.post("/v1/orders/" + id + "/payments", "k-1", payment_body());
  ASSERT_TRUE(has_status(paid, 201));
  EXPECT_TRUE(replayed_header_is(paid, "false"));
  EXPECT_EQ(paid.res.json()["order_id"], id);
}

TEST_F(idempotency_protocol_test, SameKeyOnAnotherPathOfOneOperationIsAMismatch) {
  const auto first = api.create_order("m-1", "k-1");
  const auto second = api.create_order("m-2", "k-2");
  ASSERT_TRUE(has_status(api.post("/v1/orders/" + first + "/cancel", "c-1", json::object()), 200));
  auto r = api.post("/v1/orders/" + second + "/cancel", "c-1", json::object());
  EXPECT_TRUE(is_problem(r, 422, "idempotency-key-mismatch"));
}

TEST_F(idempotency_protocol_test, QuotedAndBareKeyAreTheSameKey) {
  ASSERT_TRUE(has_status(api.post("/v1/orders", "abc", order_body("m-1")), 201));
  auto r = api.post("/v1/orders", "\"abc\"", order_body("m-1"));
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_TRUE(replayed_header_is(r, "true"));
}

TEST_F(idempotency_protocol_test, KeyOf255VisibleCharactersIsAccepted) {
  std::string key(254, 'k');
  key.push_back('~');
  ASSERT_TRUE(has_status(api.post("/v1/orders", key, order_body("m-1")), 201));
  auto r = api.post("/v1/orders", key, order_body("m-1"));
  EXPECT_TRUE(replayed_header_is(r, "true"));
}

TEST_F(idempotency_protocol_test, FingerprintIgnoresKeyOrderAndWhitespace) {
  const std::string compact =
      R"({"merchant_order_id":"m-fp","customer_id":"cus_1","currency":"EUR","amount_minor":1500,)"
      R"("items":[{"sku":"book","quantity":2,"unit_price_minor":500},)"
      R"({"sku":"pen","quantity":1,"unit_price_minor":500}]})";
  const std::string pretty_reordered = R"({
    "items": [
      { "unit_price_minor": 500, "quantity": 2, "sku": "book" },
      { "quantity": 1, "sku": "pen", "unit_price_minor": 500 }
    ],
    "amount_minor" : 1500,
    "currency": "EUR",
    "customer_id": "cus_1",
    "merchant_order_id": "m-fp"
  })";
  auto first = post_text("k-fp", compact);
  ASSERT_TRUE(has_status(first, 201));
  auto second = post_text("k-fp", pretty_reordered);
  ASSERT_TRUE(has_status(second, 201));
  EXPECT_TRUE(replayed_header_is(second, "true"));
  EXPECT_EQ(second.res.body, first.res.body);
}

TEST_F(idempotency_protocol_test, FingerprintIgnoresHeadersOutsideTheBody) {
  ASSERT_TRUE(has_status(api.post("/v1/orders", "k-1", order_body("m-1"),
                                  {{"User-Agent", "first/1.0"},
                                   {"traceparent",
                                    "00-0af7651916cd43dd8448eb211c80319c-"
                                    "b7ad6b7169203331-01"}}),
                         201));
  auto r = api.post("/v1/orders", "k-1", order_body("m-1"),
                    {{"User-Agent", "second/2.0"},
                     {"traceparent", "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"}});
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_TRUE(replayed_header_is(r, "true"));
}

TEST_F(idempotency_protocol_test, DuplicateJsonKeysLastOneWins) {
  const std::string base =
      R"("merchant_order_id":"m-dup","customer_id":"cus_1","amount_minor":1500,)"
      R"("items":[{"sku":"book","quantity":3,"unit_price_minor":500}])";
  ASSERT_TRUE(has_status(post_text("k-dup", "{" + base + R"(,"currency":"EUR"})"), 201));
  auto r = post_text("k-dup", "{" + base + R"(,"currency":"USD","currency":"EUR"})");
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_TRUE(replayed_header_is(r, "true"));
}

TEST_F(idempotency_protocol_test, EscapedAndLiteralUnicodeAreTheSameBody) {
  const std::string rest = R"(","customer_id":"cus_1","currency":"EUR","amount_minor":500,)"
                           R"("items":[{"sku":"book","quantity":1,"unit_price_minor":500}]})";
  const std::string literal = R"({"merchant_order_id":"m-)"
                              "\xc3\xa9" +
                              rest;  // UTF-8 e-acute
  const std::string escaped = R"({"merchant_order_id":"m-\u00e9)" + rest;
  auto first = post_text("k-utf8", literal);
  ASSERT_TRUE(has_status(first, 201));
  auto second = post_text("k-utf8", escaped);
  ASSERT_TRUE(has_status(second, 201));
  EXPECT_TRUE(replayed_header_is(second, "true"));
}

TEST_F(idempotency_protocol_test, QueryStringIsNotPartOfTheFingerprint) {
  ASSERT_TRUE(has_status(api.post("/v1/orders", "k-1", order_body("m-1")), 201));
  auto r = api.post("/v1/orders?source=retry", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(r, 201));
  EXPECT_TRUE(replayed_header_is(r, "true"));
}

TEST_F(idempotency_protocol_test, IntegerAndFloatSpellingsAreDifferentRequests) {
  auto with_integer = order_body("m-1");
  with_integer["note"] = 1;
  auto with_float = order_body("m-1");
  with_float["note"] = 1.0;
  ASSERT_TRUE(has_status(api.post("/v1/orders", "k-1", with_integer), 201));
  auto r = api.post("/v1/orders", "k-1", with_float);
  EXPECT_TRUE(is_problem(r, 422, "idempotency-key-mismatch"));
}

TEST_F(idempotency_protocol_test, MismatchLeavesTheStoredRecordUnchanged) {
  auto first = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(first, 201));
  ASSERT_TRUE(is_problem(api.post("/v1/orders", "k-1", order_body("m-2")), 422,
                         "idempotency-key-mismatch"));
  auto replay = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(replay, 201));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(replay.res.body, first.res.body);
  auto stats = api.stats();
  EXPECT_EQ(stats["orders"], 1);
  EXPECT_EQ(stats["key_mismatches"], 1);
}

TEST_F(idempotency_protocol_test, ValidationFailureDoesNotHoldTheKey) {
  auto bad = order_body("m-1");
  bad["currency"] = "eur";
  ASSERT_TRUE(is_problem(api.post("/v1/orders", "k-1", bad), 400, "validation-failed"));
  auto corrected = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(corrected, 201));
  EXPECT_TRUE(replayed_header_is(corrected, "false"));
}

TEST_F(idempotency_protocol_test, ConcurrentDuplicatesExecuteOnce) {
  ASSERT_NO_FATAL_FAILURE(
      api.set_faults(only(on_create("delay", {{"delay_ms", 1500}, {"times", 1}}))));
  auto results =
      post_concurrently(server.port(), 16, "/v1/orders", {"k-race"}, order_body("m-race").dump());

  int first_executions = 0;
  int replays = 0;
  int in_progress = 0;
  std::string created_body;
  for (const auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.ec.message();
    if (r.res.status == 201) {
      if (created_body.empty()) created_body = r.res.body;
      EXPECT_EQ(r.res.body, created_body);
      if (r.res.header("Idempotent-Replayed") == "false") ++first_executions;
      if (r.res.header("Idempotent-Replayed") == "true") ++replays;
      continue;
    }
    ++in_progress;
    EXPECT_TRUE(is_problem(r, 409, "idempotency-request-in-progress"));
    EXPECT_TRUE(has_no_replayed_header(r));
    const auto retry_after = std::stoi(r.res.header("Retry-After").value_or("0"));
    EXPECT_GE(retry_after, 1);
    EXPECT_LE(retry_after, 5);
  }
  RecordProperty("in_progress", in_progress);
  RecordProperty("replays", replays);
  EXPECT_EQ(first_executions, 1);
  EXPECT_EQ(first_executions + replays + in_progress, 16);
  auto stats = api.stats();
  EXPECT_EQ(stats["orders"], 1);
  EXPECT_EQ(stats["business_id_conflicts"], 0);
  EXPECT_EQ(stats["in_progress_conflicts"], in_progress);
  EXPECT_EQ(stats["replays"], replays);
}

TEST_F(idempotency_protocol_test, TwoKeysPayingOneOrderChargeItOnce) {
  const auto id = api.create_order("m-1", "k-1");
  ASSERT_NO_FATAL_FAILURE(api.set_faults(only(on_pay("delay", {{"delay_ms", 300}, {"times", 2}}))));
  auto results = post_concurrently(server.port(), 2, "/v1/orders/" + id + "/payments",
                                   {"p-1", "p-2"}, payment_body().dump());
  ASSERT_TRUE(results[0].ok() && results[1].ok());
  const auto& paid = results[0].res.status == 201 ? results[0] : results[1];
  const auto& refused = results[0].res.status == 201 ? results[1] : results[0];
  EXPECT_TRUE(has_status(paid, 201));
  EXPECT_TRUE(is_problem(refused, 409, "invalid-state-transition"));
  auto stats = api.stats();
  EXPECT_EQ(stats["provider_charges"], 1);
  EXPECT_EQ(stats["payments"], 1);
  EXPECT_EQ(stats["orders_with_multiple_charges"], 0);
}

TEST_F(idempotency_protocol_test, CancellingAPaidOrderRefundsOnceAndReplays) {
  const auto id = api.create_order("m-1", "k-1");
  ASSERT_TRUE(has_status(api.post("/v1/orders/" + id + "/payments", "p-1", payment_body()), 201));
  const json reason{{"reason", "customer changed their mind"}};
  auto cancelled = api.post("/v1/orders/" + id + "/cancel", "c-1", reason);
  ASSERT_TRUE(has_status(cancelled, 200));
  EXPECT_TRUE(replayed_header_is(cancelled, "false"));
  EXPECT_EQ(cancelled.res.json()["status"], "CANCELLED");
  EXPECT_EQ(api.stats()["provider_refunds"], 1);

  auto replay = api.post("/v1/orders/" + id + "/cancel", "c-1", reason);
  ASSERT_TRUE(has_status(replay, 200));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(replay.res.body, cancelled.res.body);
  EXPECT_EQ(api.stats()["provider_refunds"], 1);
}

}  // namespace
}  // namespace idem::kit
