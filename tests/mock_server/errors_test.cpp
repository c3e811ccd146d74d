// Every problem type of contract section 5, produced by the in-process mock server over real
// sockets, and the order of checks of section 3: route -> arrival faults -> auth -> key -> size
// -> JSON and validation -> fingerprint -> record state.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

const std::string tenant_auth = "Bearer tenant-a";

// Headers of a tenant POST; an empty `key` sends no Idempotency-Key.
mock::header_list tenant_headers(const std::string& key) {
  mock::header_list headers{{"Authorization", tenant_auth}};
  if (!key.empty()) headers.emplace_back("Idempotency-Key", key);
  return headers;
}

// A body just over the contract's 64 KiB limit.
std::string oversized_body() {
  auto body = order_body("m-big");
  body["padding"] = std::string(65 * 1024, 'x');
  return body.dump();
}

class errors_test : public ::testing::Test {
 protected:
  running_server server;
  api_client api{server.port()};
  http_client http{server.port()};
};

TEST_F(errors_test, MissingTokenIsUnauthenticatedWithBearerChallenge) {
  auto r = http.send("POST", "/v1/orders", {{"Idempotency-Key", "k-1"}}, order_body("m-1").dump());
  EXPECT_TRUE(is_problem(r, 401, "unauthenticated"));
  EXPECT_EQ(r.res.header("WWW-Authenticate").value_or(""), "Bearer");
}

TEST_F(errors_test, EmptyBearerTokenIsUnauthenticated) {
  auto r = http.send("POST", "/v1/orders", {{"Authorization", "Bearer "}, {"Idempotency-Key", "k"}},
                     order_body("m-1").dump());
  EXPECT_TRUE(is_problem(r, 401, "unauthenticated"));
  EXPECT_TRUE(r.res.header("WWW-Authenticate").value_or("").starts_with("Bearer"));
}

TEST_F(errors_test, GetWithoutTokenIsUnauthenticated) {
  auto r = http.send("GET", "/v1/orders?merchant_order_id=m-1");
  EXPECT_TRUE(is_problem(r, 401, "unauthenticated"));
}

TEST_F(errors_test, MissingAuthBeatsMissingKey) {
  auto r = http.send("POST", "/v1/orders", {}, order_body("m-1").dump());
  EXPECT_TRUE(is_problem(r, 401, "unauthenticated"));
}

TEST_F(errors_test, MissingAuthBeatsTooLargeBody) {
  auto r = http.send("POST", "/v1/orders", {{"Idempotency-Key", "k-1"}}, oversized_body());
  EXPECT_TRUE(is_problem(r, 401, "unauthenticated"));
}

TEST_F(errors_test, PostWithoutKeyIsKeyMissing) {
  auto r = http.send("POST", "/v1/orders", tenant_headers(""), order_body("m-1").dump());
  EXPECT_TRUE(is_problem(r, 400, "idempotency-key-missing"));
}

struct key_case {
  std::string name;
  std::vector<std::string> values;  // one Idempotency-Key header per value
};

class invalid_key_test : public errors_test, public ::testing::WithParamInterface<key_case> {};

TEST_P(invalid_key_test, IsKeyInvalid) {
  mock::header_list headers{{"Authorization", tenant_auth}};
  for (const auto& value : GetParam().values) {
    headers.emplace_back("Idempotency-Key", value);
  }
  auto r = http.send("POST", "/v1/orders", headers, order_body("m-1").dump());
  EXPECT_TRUE(is_problem(r, 400, "idempotency-key-invalid"));
  EXPECT_EQ(api.stats()["orders"], 0);
}

INSTANTIATE_TEST_SUITE_P(
    Keys, invalid_key_test,
    ::testing::Values(key_case{"Empty", {""}}, key_case{"QuotedEmpty", {"\"\""}},
                      key_case{"TooLong256", {std::string(256, 'k')}},
                      key_case{"QuotedTooLong256", {"\"" + std::string(256, 'k') + "\""}},
                      key_case{"SpaceInsideQuotes", {"\"a b\""}},
                      // HTAB: the one control character HTTP lets through to the server.
                      key_case{"ControlCharInsideQuotes", {"\"a\tb\""}},
                      // Other control characters and DEL make the HTTP parser refuse the
                      // header block; the answer is still the key's, not a generic 400.
                      key_case{"ControlChar01", {std::string{"a\x01z"}}},
                      key_case{"ControlChar01InsideQuotes", {std::string{"\"a\x01z\""}}},
                      key_case{"Delete7F", {std::string{"a\x7fz"}}},
                      key_case{"BareCarriageReturn", {std::string{"a\rz"}}},
                      key_case{"SpaceInBareKey", {"a b"}}, key_case{"Repeated", {"k-1", "k-1"}}),
    [](const auto& info) { return info.param.name; });

TEST_F(errors_test, MissingKeyBeatsTooLargeBody) {
  auto r = http.send("POST", "/v1/orders", tenant_headers(""), oversized_body());
  EXPECT_TRUE(is_problem(r, 400, "idempotency-key-missing"));
}

TEST_F(errors_test, BodyOver64KiBIsPayloadTooLarge) {
  auto r = http.send("POST", "/v1/orders", tenant_headers("k-big"), oversized_body());
  EXPECT_TRUE(is_problem(r, 413, "payload-too-large"));
  EXPECT_EQ(api.stats()["orders"], 0);
}

TEST_F(errors_test, BodyOfExactly64KiBIsAccepted) {
  auto body = order_body("m-64k");
  body["padding"] = "";
  body["padding"] = std::string(64 * 1024 - body.dump().size(), 'x');
  ASSERT_EQ(body.dump().size(), 64u * 1024);
  EXPECT_TRUE(has_status(api.post("/v1/orders", "k-64k", body), 201));
}

TEST_F(errors_test, ChunkedBodyOver64KiBIsPayloadTooLarge) {
  std::string request =
      "POST /v1/orders HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: " + tenant_auth +
      "\r\nIdempotency-Key: k-chunked\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  for (int i = 0; i < 5; ++i) {  // 5 chunks of 16 KiB
    request += "4000\r\n" + std::string(0x4000, ' ') + "\r\n";
  }
  request += "0\r\n\r\n";
  EXPECT_TRUE(is_problem(http.send_raw(request), 413, "payload-too-large"));
}

TEST_F(errors_test, TooLargeBodyBeatsInvalidJson) {
  auto r = http.send("POST", "/v1/orders", tenant_headers("k-big"), std::string(70'000, '{'));
  EXPECT_TRUE(is_problem(r, 413, "payload-too-large"));
}

TEST_F(errors_test, InvalidJsonIsValidationFailedWithFieldErrors) {
  auto r = http.send("POST", "/v1/orders", tenant_headers("k-1"), R"({"merchant_order_id": )");
  ASSERT_TRUE(is_problem(r, 400, "validation-failed"));
  auto errors = r.res.json()["errors"];
  ASSERT_TRUE(errors.is_array());
  ASSERT_FALSE(errors.empty());
  for (const auto& e : errors) {
    EXPECT_TRUE(e.is_object() && e.contains("field") && e["field"].is_string() &&
                e.contains("message") && e["message"].is_string())
        << e;
  }
}

TEST_F(errors_test, InvalidJsonBeatsKeyMismatchAndStoresNothing) {
  auto first = api.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(first, 201));
  auto r = http.send("POST", "/v1/orders", tenant_headers("k-1"), "{not json");
  EXPECT_TRUE(is_problem(r, 400, "validation-failed"));
  auto again = api.post("/v1/orders", "k-1", order_body("m-1"));
  EXPECT_TRUE(has_status(again, 201));
  EXPECT_TRUE(replayed_header_is(again, "true"));
  EXPECT_EQ(again.res.body, first.res.body);
}

struct validation_case {
  std::string name;
  std::string target;
  json body;
  std::string field;  // the `field` of one reported error contains this
};

std::vector<validation_case> validation_cases() {
  auto order = [](auto change) {
    auto body = order_body("m-v");
    change(body);
    return body;
  };
  const std::string orders = "/v1/orders";
  const std::string pay = "/v1/orders/ord_any/payments";
  const std::string cancel = "/v1/orders/ord_any/cancel";
  auto payment = [](auto change) {
    auto body = payment_body();
    change(body);
    return body;
  };
  return {
      {"BodyNotAnObject", orders, json::array(), ""},
      {"MerchantOrderIdMissing", orders, order([](json& b) { b.erase("merchant_order_id"); }),
       "merchant_order_id"},
      {"MerchantOrderIdEmpty", orders, order([](json& b) { b["merchant_order_id"] = ""; }),
       "merchant_order_id"},
      {"MerchantOrderIdTooLong", orders,
       order([](json& b) { b["merchant_order_id"] = std::string(256, 'm'); }), "merchant_order_id"},
      {"CustomerIdMissing", orders, order([](json& b) { b.erase("customer_id"); }), "customer_id"},
      {"CurrencyLowercase", orders, order([](json& b) { b["currency"] = "eur"; }), "currency"},
      {"CurrencyTwoLetters", orders, order([](json& b) { b["currency"] = "EU"; }), "currency"},
      {"AmountFloat", orders, order([](json& b) { b["amount_minor"] = 1500.0; }), "amount_minor"},
      {"AmountString", orders, order([](json& b) { b["amount_minor"] = "1500"; }), "amount_minor"},
      {"AmountZero", orders, order([](json& b) { b["amount_minor"] = 0; }), "amount_minor"},
      {"AmountNegative", orders, order([](json& b) { b["amount_minor"] = -1500; }), "amount_minor"},
      {"AmountAbove2Pow53Minus1", orders,
       order([](json& b) { b["amount_minor"] = 9007199254740992LL; }), "amount_minor"},
      {"SumMismatch", orders, order([](json& b) { b["amount_minor"] = 1400; }), "amount_minor"},
      {"ItemsEmpty", orders, order([](json& b) { b["items"] = json::array(); }), "items"},
      {"ItemsMissing", orders, order([](json& b) { b.erase("items"); }), "items"},
      {"QuantityZero", orders, order([](json& b) { b["items"][0]["quantity"] = 0; }), "quantity"},
      {"QuantityFloat", orders, order([](json& b) { b["items"][0]["quantity"] = 2.0; }),
       "quantity"},
      {"UnitPriceNegative", orders, order([](json& b) { b["items"][0]["unit_price_minor"] = -1; }),
       "unit_price_minor"},
      {"SkuEmpty", orders, order([](json& b) { b["items"][1]["sku"] = ""; }), "sku"},
      {"PaymentAmountFloat", pay, payment([](json& b) { b["amount_minor"] = 15.5; }),
       "amount_minor"},
      {"PaymentCurrencyLowercase", pay, payment([](json& b) { b["currency"] = "eur"; }),
       "currency"},
      {"PaymentMethodMissing", pay, payment([](json& b) { b.erase("payment_method"); }),
       "payment_method"},
      {"CancelReasonNotAString", cancel, json{{"reason", 5}}, "reason"},
  };
}

class validation_test : public errors_test,
                        public ::testing::WithParamInterface<validation_case> {};

TEST_P(validation_test, IsValidationFailedNamingTheField) {
  const auto& c = GetParam();
  auto r = api.post(c.target, "k-v", c.body);
  ASSERT_TRUE(is_problem(r, 400, "validation-failed"));
  auto errors = r.res.json()["errors"];
  ASSERT_TRUE(errors.is_array()) << r.res.body;
  bool named = false;
  for (const auto& e : errors) {
    ASSERT_TRUE(e.contains("field") && e["field"].is_string()) << e;
    ASSERT_TRUE(e.contains("message") && e["message"].is_string()) << e;
    named = named || e["field"].get<std::string>().find(c.field) != std::string::npos;
  }
  EXPECT_TRUE(named) << "no error names '" << c.field << "': " << r.res.body;
}

INSTANTIATE_TEST_SUITE_P(Rules, validation_test, ::testing::ValuesIn(validation_cases()),
                         [](const auto& info) { return info.param.name; });

TEST_F(errors_test, WrongMethodIsMethodNotAllowedWithAllow) {
  auto r = http.send("DELETE", "/v1/orders", {{"Authorization", tenant_auth}});
  ASSERT_TRUE(is_problem(r, 405, "method-not-allowed"));
  auto allow = r.res.header("Allow").value_or("");
  EXPECT_NE(allow.find("GET"), std::string::npos) << allow;
  EXPECT_NE(allow.find("POST"), std::string::npos) << allow;
}

TEST_F(errors_test, MethodCheckBeatsAuth) {
  auto r = http.send("PUT", "/v1/orders/ord_1");
  EXPECT_TRUE(is_problem(r, 405, "method-not-allowed"));
  EXPECT_EQ(r.res.header("Allow").value_or(""), "GET, HEAD");
}

TEST_F(errors_test, UnknownRouteIsNotFoundBeforeAuth) {
  auto r = http.send("GET", "/v1/nothing-here");
  EXPECT_TRUE(is_problem(r, 404, "not-found"));
}

TEST_F(errors_test, RouteCheckBeatsArrivalFaults) {
  // No `match`: the rule fires on every request, these two included.
  const json every_request = {{"fault", "status_before_processing"}, {"status", 503}};
  ASSERT_NO_FATAL_FAILURE(api.set_faults(fault_config({every_request})));
  EXPECT_TRUE(is_problem(http.send("GET", "/v1/nothing-here"), 404, "not-found"));
  EXPECT_TRUE(is_problem(http.send("DELETE", "/v1/orders"), 405, "method-not-allowed"));
}

TEST_F(errors_test, ArrivalFaultBeatsAuth) {
  ASSERT_NO_FATAL_FAILURE(
      api.set_faults(only(on_create("status_before_processing", {{"status", 503}}))));
  auto r = http.send("POST", "/v1/orders", {}, order_body("m-1").dump());
  EXPECT_TRUE(is_problem(r, 503, "unavailable"));
}

TEST_F(errors_test, KeyReusedWithAnotherBodyIsKeyMismatch) {
  ASSERT_TRUE(has_status(api.post("/v1/orders", "k-1", order_body("m-1")), 201));
  auto r = api.post("/v1/orders", "k-1", order_body("m-2"));
  EXPECT_TRUE(is_problem(r, 422, "idempotency-key-mismatch"));
}

// A server whose first POST /v1/orders stays PROCESSING for 3 s; `busy_key` starts it and
// returns once the 202 of `Prefer: respond-async` proves that it holds the key "k-1".
class errors_in_progress_test : public ::testing::Test {
 protected:
  static mock::server_options options() {
    auto o = test_server_options();
    o.async_after = 100ms;
    return o;
  }

  void busy_key() {
    ASSERT_NO_FATAL_FAILURE(
        api.set_faults(only(on_create("delay", {{"delay_ms", 3000}, {"times", 1}}))));
    auto first = api.post("/v1/orders", "k-1", order_body("m-1"), {{"Prefer", "respond-async"}});
    ASSERT_TRUE(has_status(first, 202));
  }

  running_server server{options()};
  api_client api{server.port()};
  api_client other{server.port()};
};

TEST_F(errors_in_progress_test, DuplicateOfBusyKeyIsInProgressWithRetryAfter) {
  ASSERT_NO_FATAL_FAILURE(busy_key());
  auto r = other.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(is_problem(r, 409, "idempotency-request-in-progress"));
  const auto retry_after = std::stoi(r.res.header("Retry-After").value_or("0"));
  EXPECT_GE(retry_after, 1);
  EXPECT_LE(retry_after, 5);
}

TEST_F(errors_in_progress_test, KeyMismatchBeatsInProgress) {
  ASSERT_NO_FATAL_FAILURE(busy_key());
  auto r = other.post("/v1/orders", "k-1", order_body("m-2"));
  EXPECT_TRUE(is_problem(r, 422, "idempotency-key-mismatch"));
}

TEST_F(errors_test, SecondKeyForOneMerchantOrderIdIsDuplicateBusinessId) {
  const auto id = api.create_order("m-1", "k-1");
  auto r = api.post("/v1/orders", "k-2", order_body("m-1"));
  ASSERT_TRUE(is_problem(r, 409, "duplicate-business-id"));
  EXPECT_EQ(r.res.json()["existing_order_id"], id);
  EXPECT_EQ(r.res.header("Location").value_or(""), "/v1/orders/" + id);
}

TEST_F(errors_test, PayingAPaidOrderIsInvalidStateTransition) {
  const auto id = api.create_order("m-1", "k-1");
  ASSERT_TRUE(has_status(api.post("/v1/orders/" + id + "/payments", "p-1", payment_body()), 201));
  auto r = api.post("/v1/orders/" + id + "/payments", "p-2", payment_body());
  EXPECT_TRUE(is_problem(r, 409, "invalid-state-transition"));
}

TEST_F(errors_test, DeclinedCardIsPaymentDeclined) {
  const auto id = api.create_order("m-1", "k-1");
  auto r = api.post("/v1/orders/" + id + "/payments", "p-1", payment_body(1500, "card_declined"));
  EXPECT_TRUE(is_problem(r, 402, "payment-declined"));
  EXPECT_EQ(api.stats()["provider_charges"], 0);
}

TEST_F(errors_test, UnknownOrderIsNotFound) {
  EXPECT_TRUE(is_problem(api.get("/v1/orders/ord_missing"), 404, "not-found"));
  EXPECT_TRUE(is_problem(api.post("/v1/orders/ord_missing/payments", "p-1", payment_body()), 404,
                         "not-found"));
  EXPECT_TRUE(is_problem(api.post("/v1/orders/ord_missing/cancel", "c-1", json::object()), 404,
                         "not-found"));
  EXPECT_TRUE(is_problem(api.get("/v1/requests/req_missing"), 404, "not-found"));
}

struct injected_case {
  std::string label;
  int status;
  std::string name;
};

class injected_status_test : public errors_test,
                             public ::testing::WithParamInterface<injected_case> {};

TEST_P(injected_status_test, IsReportedWithItsProblemTypeAndNoEffect) {
  ASSERT_NO_FATAL_FAILURE(api.set_faults(only(on_create(
      "status_before_processing", {{"status", GetParam().status}, {"retry_after_s", 2}}))));
  auto r = api.post("/v1/orders", "k-1", order_body("m-1"));
  EXPECT_TRUE(is_problem(r, GetParam().status, GetParam().name));
  EXPECT_EQ(r.res.header("Retry-After").value_or(""), "2");
  EXPECT_EQ(api.stats()["orders"], 0);
}

INSTANTIATE_TEST_SUITE_P(Faults, injected_status_test,
                         ::testing::Values(injected_case{"RateLimited429", 429, "rate-limited"},
                                           injected_case{"Unavailable503", 503, "unavailable"},
                                           injected_case{"Internal500", 500, "internal"}),
                         [](const auto& info) { return info.param.label; });

}  // namespace
}  // namespace idem::kit
