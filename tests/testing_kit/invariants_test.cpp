// The exactly-once invariants as one call of the test kit, and its typed stats, clock and
// reset, against the real server.
#include <gtest/gtest.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "idem/testing/mock_server_process.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/processes/mock_server_binary.hpp"

namespace {

namespace kit = idem::kit;
using nlohmann::json;
using namespace std::chrono_literals;

class invariants_test : public ::testing::Test {
 protected:
  void SetUp() override {
    auto started = kit::mock_server_process::start({.binary = kit::built_mock_server_binary()});
    ASSERT_TRUE(started.ok()) << started;
    server_.emplace(std::move(started).value());
  }
  kit::mock_server_process& server() { return *server_; }
  idem::kit::api_client api() { return idem::kit::api_client{server().port(), "shop"}; }

 private:
  std::optional<kit::mock_server_process> server_;
};

TEST_F(invariants_test, ACleanRunHoldsEveryInvariant) {
  auto shop = api();
  for (int i = 0; i < 3; ++i) {
    const auto id = shop.create_order("cart-" + std::to_string(i), "create-" + std::to_string(i));
    // The same key twice: one execution, one replay.
    for (int attempt = 0; attempt < 2; ++attempt) {
      const auto paid = shop.post("/v1/orders/" + id + "/payments", "pay-" + std::to_string(i),
                                  idem::kit::payment_body());
      EXPECT_EQ(paid.res.status, 201);
    }
  }
  const auto report = server().admin().check_invariants();
  EXPECT_TRUE(report.ok()) << report.describe();
  ASSERT_EQ(report.checks.size(), 3U);
  EXPECT_EQ(report.checks[0].name, "no_order_created_twice");
  EXPECT_EQ(report.checks[1].name, "no_order_charged_twice");
  EXPECT_EQ(report.checks[2].name, "one_key_per_business_id");
  EXPECT_NE(report.describe().find("all 3 hold"), std::string::npos) << report;
}

TEST_F(invariants_test, ASecondKeyForOneBusinessIdIsReportedWithTheBusinessId) {
  auto shop = api();
  (void)shop.create_order("cart-7", "first-key");
  // A client that minted a new key for a retry of the same cart: the server's business
  // constraint stops the second order, the invariant names the client's bug.
  const auto second = shop.post("/v1/orders", "second-key", idem::kit::order_body("cart-7"));
  EXPECT_EQ(second.res.status, 409);

  const auto report = server().admin().check_invariants();
  EXPECT_FALSE(report.ok());
  ASSERT_EQ(report.checks.size(), 3U);
  EXPECT_TRUE(report.checks[0].ok);
  EXPECT_TRUE(report.checks[1].ok);
  EXPECT_FALSE(report.checks[2].ok);
  EXPECT_EQ(report.checks[2].violations, 1);
  ASSERT_EQ(report.checks[2].examples.size(), 1U);
  EXPECT_NE(report.checks[2].examples[0].find("merchant_order_id cart-7: 2"), std::string::npos)
      << report;
  std::ostringstream printed;
  printed << report;
  EXPECT_NE(printed.str().find("[FAIL] one_key_per_business_id: 1 violation(s)"), std::string::npos)
      << printed.str();
}

TEST_F(invariants_test, AServerThatCannotBeAskedIsNotAPass) {
  ASSERT_TRUE(server().kill().ok());
  const auto report = server().admin().check_invariants();
  EXPECT_FALSE(report.ok());
  ASSERT_TRUE(report.unavailable.has_value());
  EXPECT_EQ(report.unavailable->code, kit::mock_errc::request_failed);
  EXPECT_NE(report.describe().find("invariants not checked"), std::string::npos) << report;
}

TEST(InvariantsParsing, AnAnswerWithoutChecksIsABadAnswerNotAPass) {
  const auto report = kit::parse_invariants(json::parse(R"({"ok": true})"));
  EXPECT_FALSE(report.ok());
  ASSERT_TRUE(report.unavailable.has_value());
  EXPECT_EQ(report.unavailable->code, kit::mock_errc::bad_answer);
  EXPECT_FALSE(kit::parse_invariants(json::parse(R"({"checks": []})")).ok());
}

TEST_F(invariants_test, StatsAreTypedAndPrintable) {
  auto shop = api();
  (void)shop.create_order("cart-1", "k-1");
  (void)shop.post("/v1/orders", "k-1", idem::kit::order_body("cart-1"));
  auto stats = server().admin().stats();
  ASSERT_TRUE(stats.ok()) << stats;
  EXPECT_EQ(stats->orders, 1);
  EXPECT_EQ(stats->replays, 1);
  EXPECT_EQ(stats->max_keys_per_business_id, 1);
  EXPECT_EQ(stats->raw["orders"], 1);
  std::ostringstream printed;
  printed << *stats;
  EXPECT_NE(printed.str().find("orders=1"), std::string::npos) << printed.str();
}

TEST(StatsParsing, AMissingCounterIsABadAnswerThatNamesIt) {
  auto stats = kit::parse_mock_stats(json::parse(R"({"requests": 1})"));
  ASSERT_FALSE(stats.ok());
  EXPECT_EQ(stats.error().code, kit::mock_errc::bad_answer);
  EXPECT_NE(stats.describe().find("'orders'"), std::string::npos) << stats;
}

TEST_F(invariants_test, AdvancingTheClockExpiresAKey) {
  auto shop = api();
  (void)shop.create_order("cart-1", "k-1");
  // Past the server's 24 h key TTL: the key is free again, so the same request executes anew
  // (and meets the order it made: 409 duplicate-business-id, a first execution).
  const auto advanced = server().admin().advance_clock(25h);
  ASSERT_TRUE(advanced.ok()) << advanced;
  const auto again = shop.post("/v1/orders", "k-1", idem::kit::order_body("cart-1"));
  EXPECT_EQ(again.res.status, 409);
  EXPECT_EQ(again.res.header("Idempotent-Replayed"), "false");
}

TEST_F(invariants_test, ResetForgetsOrdersAndFaults) {
  auto shop = api();
  (void)shop.create_order("cart-1", "k-1");
  ASSERT_TRUE(server().admin().use_preset("everything").ok());
  const auto reset = server().admin().reset();
  ASSERT_TRUE(reset.ok()) << reset;
  EXPECT_EQ(server().admin().stats().value().orders, 0);
  EXPECT_TRUE(server().admin().faults().value()["rules"].empty());
  const auto settled = server().admin().complete_abandoned();
  ASSERT_TRUE(settled.ok()) << settled;
  EXPECT_EQ(*settled, 0);
}

}  // namespace
