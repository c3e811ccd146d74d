// Tenants (principals: one per bearer token) cannot read or replay each other's records. What
// the other files already prove is not repeated here: the same key and body under another
// principal executes anew (idempotency_protocol_test), another principal's order is 404 and
// absent from the lookup by merchant_order_id, which is unique per principal only, and cannot be
// paid or cancelled (orders_api_test), and a status URL is 404 for another principal
// (async_and_wait_test). This file adds the cases where a shared key scope would show: an owner
// still processing, another body under the owner's key, another tenant's stored answer under
// the owner's key, and tokens that look alike.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using nlohmann::json;
using namespace std::chrono_literals;

class TenantIsolation : public ::testing::Test {
 protected:
  // Answers `Prefer: respond-async` with 202 once a request has run 100 ms.
  static mock::server_options options() {
    auto o = test_server_options();
    o.async_after = 100ms;
    return o;
  }

  running_server server{options()};
  api_client owner{server.port(), "tenant-a"};
  api_client other{server.port(), "tenant-b"};
};

// While the owner's execution holds key k-1 (a delay on it, answered 202), another tenant's
// request with the same key and body is neither told "in progress" nor given the owner's
// result: it executes at once, for itself.
TEST_F(TenantIsolation, OwnersKeyStillProcessingIsNothingToAnotherTenant) {
  ASSERT_NO_FATAL_FAILURE(
      owner.set_faults(only(on_create("delay", {{"delay_ms", 3000}, {"times", 1}}))));
  auto busy = owner.post("/v1/orders", "k-1", order_body("m-1"), {{"Prefer", "respond-async"}});
  ASSERT_TRUE(has_status(busy, 202));

  auto mine = other.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(mine, 201));
  EXPECT_TRUE(replayed_header_is(mine, "false"));
  EXPECT_EQ(mine.res.json()["merchant_order_id"], "m-1");
  EXPECT_EQ(stat(owner, "in_progress_conflicts"), 0);
}

// The owner's record for k-1 does not exist for another tenant: another body under that key is
// a first execution there, not 422, and the owner's record (and its replay) stays as it was.
TEST_F(TenantIsolation, AnotherBodyUnderTheOwnersKeyIsNoMismatchAndLeavesTheOwnersRecord) {
  auto first = owner.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(first, 201));

  auto mine = other.post("/v1/orders", "k-1", order_body("m-2"));
  ASSERT_TRUE(has_status(mine, 201));
  EXPECT_TRUE(replayed_header_is(mine, "false"));
  EXPECT_EQ(mine.res.json()["merchant_order_id"], "m-2");

  auto replay = owner.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(replay, 201));
  EXPECT_TRUE(replayed_header_is(replay, "true"));
  EXPECT_EQ(replay.res.body, first.res.body);
  EXPECT_EQ(stat(owner, "key_mismatches"), 0);
}

// Another tenant's failed attempts on the owner's order are stored (a 404 on a POST is) under
// that tenant's keys only: they change nothing of the order, and the owner's own requests with
// the very same keys and bodies execute instead of replaying that tenant's 404.
TEST_F(TenantIsolation, AnotherTenantsStoredAnswersNeverReachTheOwner) {
  const auto id = owner.create_order("m-1", "k-1");
  const auto pay = "/v1/orders/" + id + "/payments";
  const auto cancel = "/v1/orders/" + id + "/cancel";
  ASSERT_TRUE(is_problem(other.post(pay, "p-1", payment_body()), 404, "not-found"));
  ASSERT_TRUE(is_problem(other.post(cancel, "c-1", json::object()), 404, "not-found"));
  ASSERT_TRUE(is_problem(other.post(pay, "p-1", payment_body()), 404, "not-found"));

  auto order = owner.get("/v1/orders/" + id);
  ASSERT_TRUE(has_status(order, 200));
  EXPECT_EQ(order.res.json()["status"], "CREATED");
  EXPECT_EQ(order.res.json()["payments"], json::array());
  auto stats = owner.stats();
  EXPECT_EQ(stats["orders"], 1);
  EXPECT_EQ(stats["payments"], 0);
  EXPECT_EQ(stats["provider_charges"], 0);
  EXPECT_EQ(stats["provider_refunds"], 0);

  auto paid = owner.post(pay, "p-1", payment_body());
  ASSERT_TRUE(has_status(paid, 201));
  EXPECT_TRUE(replayed_header_is(paid, "false"));
  auto cancelled = owner.post(cancel, "c-1", json::object());
  ASSERT_TRUE(has_status(cancelled, 200));
  EXPECT_TRUE(replayed_header_is(cancelled, "false"));
  EXPECT_EQ(cancelled.res.json()["status"], "CANCELLED");
}

// A principal is the whole token, byte for byte: tokens that differ only in letter case, in
// their last character after a long common prefix, or by a character appended are strangers.
struct look_alike {
  const char* name;
  const char* owner;
  const char* other;
};

void PrintTo(const look_alike& tokens, std::ostream* out) {
  *out << tokens.name;
}

class LookAlikeTokens : public ::testing::TestWithParam<look_alike> {
 protected:
  running_server server;
};

TEST_P(LookAlikeTokens, AreDifferentTenants) {
  api_client owner{server.port(), GetParam().owner};
  api_client other{server.port(), GetParam().other};
  const auto id = owner.create_order("m-1", "k-1");

  EXPECT_TRUE(is_problem(other.get("/v1/orders/" + id), 404, "not-found"));
  auto lookup = other.get("/v1/orders?merchant_order_id=m-1");
  ASSERT_TRUE(has_status(lookup, 200));
  EXPECT_EQ(lookup.res.json()["data"], json::array());
  auto mine = other.post("/v1/orders", "k-1", order_body("m-1"));
  ASSERT_TRUE(has_status(mine, 201));
  EXPECT_TRUE(replayed_header_is(mine, "false"));
  EXPECT_NE(mine.res.json()["id"], id);
}

const look_alike look_alike_tokens[] = {
    {"LetterCase", "shop-token-a", "SHOP-TOKEN-A"},
    {"LastCharacter", "shop-0000000000000000000000000000000000000000000000000000000001",
     "shop-0000000000000000000000000000000000000000000000000000000002"},
    {"OneMore", "shop-token", "shop-token-"}};

INSTANTIATE_TEST_SUITE_P(TenantIsolation, LookAlikeTokens, ::testing::ValuesIn(look_alike_tokens),
                         [](const auto& info) { return std::string(info.param.name); });

}  // namespace
}  // namespace idem::kit
