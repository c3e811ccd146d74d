// Numbers chosen to break arithmetic (issue: hardening, item 3), tokens in the wrong place, and
// bodies that are not what the contract says: each gets a clear answer and changes nothing.
#include <gtest/gtest.h>

#include <string>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using json = nlohmann::json;

const std::string int64_max = "9223372036854775807";

class HostileInput : public ::testing::Test {
 protected:
  running_server server_;
  api_client api_{server_.port()};

  std::int64_t now_ms() {
    auto r = api_.admin("POST", "/_mock/clock", {{"advance_s", 0}});
    EXPECT_EQ(r.res.status, 200) << r.res.body;
    return r.res.json().at("now_ms").get<std::int64_t>();
  }
};

// wait=INT64_MAX seconds overflowed to a negative wait: a busy key answered 409 at once instead
// of waiting (up to the 10 s cap) for the first execution's answer.
TEST_F(HostileInput, HugePreferWaitOnABusyKeyWaitsForTheAnswerInsteadOfOverflowing) {
  api_.set_faults(only(on_create("delay", {{"delay_ms", 300}, {"times", 1}})));
  auto first = api_.post(orders, "k-1", order_body("m-1"), {{"Prefer", "respond-async, wait=0"}});
  ASSERT_TRUE(has_status(first, 202));

  auto waited = api_.post(orders, "k-1", order_body("m-1"), {{"Prefer", "wait=" + int64_max}});
  ASSERT_TRUE(has_status(waited, 201));
  EXPECT_TRUE(replayed_header_is(waited, "true"));
}

// With respond-async the overflow answered 202 at once, though the execution takes no time.
TEST_F(HostileInput, HugePreferWaitWithRespondAsyncAnswersTheResultNotAnEarly202) {
  auto r =
      api_.post(orders, "k-1", order_body("m-1"), {{"Prefer", "respond-async, wait=" + int64_max}});
  ASSERT_TRUE(has_status(r, 201));
}

TEST_F(HostileInput, ClockAdvanceBeyondAnyRepresentableTimeIsABadRequestNot500) {
  const auto before = now_ms();
  auto r = api_.admin("POST", "/_mock/clock", {{"advance_s", 1e300}});
  EXPECT_TRUE(is_problem(r, 400, "validation-failed"));
  EXPECT_GE(now_ms(), before);
}

// Two advances of 9.2e15 s each wrapped the (persisted) clock backwards: leases never expired.
TEST_F(HostileInput, RepeatedHugeClockAdvancesAreRefusedAndTheClockNeverGoesBack) {
  const auto before = now_ms();
  for (int i = 0; i < 2; ++i) {
    auto r = api_.admin("POST", "/_mock/clock", {{"advance_s", 9.2e15}});
    EXPECT_TRUE(is_problem(r, 400, "validation-failed")) << i;
  }
  EXPECT_GE(now_ms(), before);
  // The largest accepted advances: the clock stops at its limit, still moving forward only.
  auto big = api_.admin("POST", "/_mock/clock", {{"advance_s", 3'000'000'000.0}});
  ASSERT_TRUE(has_status(big, 200));
  auto again = api_.admin("POST", "/_mock/clock", {{"advance_s", 3'000'000'000.0}});
  EXPECT_TRUE(is_problem(again, 400, "validation-failed"));
  EXPECT_GT(now_ms(), before + 2'999'000'000'000);
}

// delay_ms = INT64_MAX overflowed the timer's expiry into the past: no delay at all.
TEST_F(HostileInput, FaultDelayBeyondADayIsRefusedNamingTheField) {
  for (const auto* fault : {"delay", "stall_after_commit"}) {
    auto r = api_.admin(
        "PUT", "/_mock/faults",
        only(on_create(fault, {{"delay_ms", std::numeric_limits<std::int64_t>::max()}})));
    ASSERT_TRUE(is_problem(r, 400, "validation-failed")) << fault;
    EXPECT_NE(r.res.body.find("delay_ms"), std::string::npos) << r.res.body;
  }
  EXPECT_EQ(api_.admin("GET", "/_mock/faults").res.json().at("rules").size(), 0u);
  EXPECT_TRUE(has_status(
      api_.admin("PUT", "/_mock/faults", only(on_create("delay", {{"delay_ms", 86'400'000}}))),
      200));
}

TEST_F(HostileInput, AdminTokenIsNotATenantToken) {
  api_client as_admin{server_.port(), admin_token};
  auto post = as_admin.post(orders, "k-1", order_body("m-1"));
  EXPECT_TRUE(is_problem(post, 403, "forbidden"));
  auto get = as_admin.get(orders + "?merchant_order_id=m-1");
  EXPECT_TRUE(is_problem(get, 403, "forbidden"));
  EXPECT_EQ(stat(api_, "orders"), 0);
}

TEST_F(HostileInput, BodyThatIsNotDeclaredJsonIsUnsupportedMediaTypeAndKeepsTheKeyFree) {
  for (const auto* type : {"text/plain", "application/x-www-form-urlencoded", "application/jsonx",
                           "application/json-patch", "json"}) {
    auto r = api_.post(orders, "k-1", order_body("m-1"), {{"Content-Type", type}});
    EXPECT_TRUE(is_problem(r, 415, "unsupported-media-type")) << type;
  }
  auto twice = api_.post(orders, "k-1", order_body("m-1"),
                         {{"Content-Type", "application/json"}, {"Content-Type", "text/plain"}});
  EXPECT_TRUE(is_problem(twice, 415, "unsupported-media-type"));
  EXPECT_EQ(stat(api_, "idempotency_records"), 0);

  auto ok = api_.post(orders, "k-1", order_body("m-1"),
                      {{"Content-Type", "Application/JSON ; charset=utf-8"}});
  EXPECT_TRUE(has_status(ok, 201));
  auto suffix =
      api_.post(orders, "k-2", order_body("m-2"), {{"Content-Type", "application/vnd.shop+json"}});
  EXPECT_TRUE(has_status(suffix, 201));
}

TEST_F(HostileInput, PaymentForAnotherAmountOrCurrencyThanTheOrdersIsRefusedAndNotCharged) {
  const auto id = api_.create_order("m-1", "k-create");
  const auto target = orders + "/" + id + "/payments";
  auto amount = api_.post(target, "p-1", payment_body(1));
  EXPECT_TRUE(is_problem(amount, 400, "validation-failed"));
  EXPECT_NE(amount.res.body.find("amount_minor"), std::string::npos) << amount.res.body;
  auto body = payment_body();
  body["currency"] = "USD";
  auto currency = api_.post(target, "p-2", body);
  EXPECT_TRUE(is_problem(currency, 400, "validation-failed"));
  EXPECT_NE(currency.res.body.find("currency"), std::string::npos) << currency.res.body;
  EXPECT_EQ(stat(api_, "provider_charges"), 0);
  EXPECT_TRUE(has_status(api_.post(target, "p-1", payment_body()), 201));  // the key stayed free
}

}  // namespace
}  // namespace idem::kit
