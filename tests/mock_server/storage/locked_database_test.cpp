// Another process holding the database's write lock (an outside `BEGIN IMMEDIATE`) froze the
// server's one thread for the busy timeout on every write, /healthz included, and then answered
// 500 (issue 43, item 3). And /metrics, open to anyone, scanned whole tables on each call.
#include <gtest/gtest.h>

#include <map>
#include <string>

#include "mock_server/storage/sqlite.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_db_file.hpp"

namespace idem::kit {
namespace {

mock::server_options locked_db_options(const temp_db_file& db) {
  auto o = test_server_options();
  o.db_path = db.path();
  // Records are purged only where a test makes them expire, never between two of its reads.
  o.reaper_interval = std::chrono::hours(24);
  return o;
}

class LockedDatabase : public ::testing::Test {
 protected:
  temp_db_file db_;  // declared first: the server is gone before its files are removed
  running_server server_{locked_db_options(db_)};
  api_client api_{server_.port()};
  http_client anyone_{server_.port()};
};

TEST_F(LockedDatabase, WritesAreRefusedWith503AndNothingIsStoredWhileAnotherProcessHoldsTheLock) {
  const auto id = api_.create_order("m-1", "k-1");
  mock::database outside{db_.path()};
  outside.exec("BEGIN IMMEDIATE");

  auto create = api_.post(orders, "k-2", order_body("m-2"));
  ASSERT_TRUE(is_problem(create, 503, "unavailable"));
  EXPECT_TRUE(create.res.header("Retry-After").has_value());
  auto pay = api_.post(payments_of(id), "p-1", payment_body());
  ASSERT_TRUE(is_problem(pay, 503, "unavailable"));
  EXPECT_TRUE(pay.res.header("Retry-After").has_value());

  // What needs no write lock still answers.
  EXPECT_TRUE(has_status(anyone_.send("GET", "/healthz"), 200));
  EXPECT_TRUE(has_status(anyone_.send("GET", "/metrics"), 200));
  EXPECT_TRUE(has_status(api_.get(orders + "/" + id), 200));

  outside.exec("ROLLBACK");
  // Nothing was claimed: the same keys execute now, once.
  auto created = api_.post(orders, "k-2", order_body("m-2"));
  ASSERT_TRUE(has_status(created, 201));
  EXPECT_TRUE(replayed_header_is(created, "false"));
  auto paid = api_.post(payments_of(id), "p-1", payment_body());
  ASSERT_TRUE(has_status(paid, 201));
  EXPECT_TRUE(replayed_header_is(paid, "false"));
  auto stats = api_.stats();
  EXPECT_EQ(stats.at("orders"), 2);
  EXPECT_EQ(stats.at("provider_charges"), 1);
}

// The value of `name` (idem_mock_<name>, a _total suffix for counters) in a /metrics text.
std::int64_t metric_value(const std::string& text, const std::string& name) {
  for (const auto* suffix : {"_total ", " "}) {
    const auto line = "\nidem_mock_" + name + suffix;
    if (auto at = text.find(line); at != std::string::npos) {
      return std::stoll(text.substr(at + line.size()));
    }
  }
  return -1;
}

// The gauges as the tables define them, read through a connection of the test's own.
std::map<std::string, std::string> gauge_queries() {
  return {
      {"orders", "SELECT COUNT(*) FROM orders"},
      {"payments", "SELECT COUNT(*) FROM payments"},
      {"provider_charges", "SELECT COUNT(*) FROM provider_charges WHERE captured = 1"},
      {"provider_refunds", "SELECT COUNT(*) FROM provider_refunds"},
      {"idempotency_records", "SELECT COUNT(*) FROM idempotency_records"},
      {"orders_with_multiple_charges",
       "SELECT COUNT(*) FROM (SELECT order_id FROM provider_charges WHERE captured = 1 AND"
       " refunded = 0 GROUP BY order_id HAVING COUNT(*) > 1)"},
      {"max_keys_per_business_id",
       "SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM business_id_keys"
       " GROUP BY principal, merchant_order_id)"},
  };
}

class MetricsInMemory : public LockedDatabase {
 protected:
  void expect_metrics_match_the_tables() {
    const auto text = anyone_.send("GET", "/metrics").res.body;
    mock::database reader{db_.path()};
    for (const auto& [name, sql] : gauge_queries()) {
      EXPECT_EQ(metric_value(text, name), reader.single_int64(sql)) << name << '\n' << text;
    }
    const auto stats = api_.stats();  // the counters, as persisted
    for (const char* name : {"business_id_conflicts", "invalid_state_transitions", "replays",
                             "requests", "records_purged", "abandoned_settled"}) {
      EXPECT_EQ(metric_value(text, name), stats.at(name).get<std::int64_t>()) << name << '\n'
                                                                              << text;
    }
  }
};

// /metrics reads counts kept in memory; they must follow exactly what the tables hold, also
// where an execution rolled back, a refund repaired a charge or an expired record was removed.
TEST_F(MetricsInMemory, AgreeWithTheTablesAfterRollbacksRefundsExpiryAndReset) {
  const auto a = api_.create_order("m-a", "k-a");
  const auto b = api_.create_order("m-b", "k-b");
  ASSERT_TRUE(has_status(api_.post(orders, "k-a2", order_body("m-a")), 409));  // business conflict
  ASSERT_TRUE(has_status(api_.post(orders, "k-a3", order_body("m-a")), 409));
  ASSERT_TRUE(has_status(api_.post(orders, "k-b", order_body("m-b")), 201));  // a replay
  ASSERT_TRUE(has_status(api_.post(payments_of(a), "p-a", payment_body()), 201));
  ASSERT_TRUE(
      has_status(api_.post(payments_of(b), "p-b", payment_body(1500, "card_declined")), 402));
  ASSERT_TRUE(has_status(api_.post(cancel_of(a), "c-a", {{"reason", "x"}}), 200));  // a refund
  ASSERT_TRUE(has_status(api_.post(cancel_of(a), "c-a2", {{"reason", "x"}}), 409));
  // A crashed payment: charged by the provider, its record left PROCESSING, then taken over.
  api_.set_faults(only(on_pay("crash_during_processing", {{"times", 1}})));
  const auto c = api_.create_order("m-c", "k-c");
  EXPECT_FALSE(api_.post(payments_of(c), "p-c", payment_body()).ok());
  expect_metrics_match_the_tables();
  api_.advance_clock(31);
  ASSERT_TRUE(has_status(api_.post(payments_of(c), "p-c", payment_body()), 201));
  // An expired record counts as absent: the key executes again (and meets the constraint).
  api_.advance_clock(25 * 3600);
  ASSERT_TRUE(has_status(api_.post(orders, "k-a", order_body("m-a")), 409));
  expect_metrics_match_the_tables();
  EXPECT_EQ(metric_value(anyone_.send("GET", "/metrics").res.body, "max_keys_per_business_id"), 3);

  ASSERT_TRUE(has_status(api_.admin("POST", "/_mock/reset"), 204));
  api_.create_order("m-d", "k-d");
  expect_metrics_match_the_tables();
  EXPECT_EQ(metric_value(anyone_.send("GET", "/metrics").res.body, "orders"), 1);
}

}  // namespace
}  // namespace idem::kit
