// What a kill -9 may and may not cost the real idem-mock-server binary since a create commits
// claim, order and completion in one transaction and the traffic counters live in memory
// between writes (mock_server/storage/counters.hpp): counts of committed facts stay exact with no
// stats read before the kill, a graceful stop writes the traffic counters, and a kill in the middle
// of concurrent creates neither loses an acknowledged order nor lets one be created twice.
#include <gtest/gtest.h>
#include <signal.h>

#include <atomic>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_db_file.hpp"

namespace idem::kit {
namespace {

class KillAndCounters : public ::testing::Test {
 protected:
  temp_db_file db_;  // declared first: the server is gone before its files are removed
  std::optional<server_process> server_;

  api_client start() {
    server_.emplace(std::vector<std::string>{"--listen", "127.0.0.1:0", "--db", db_.path(),
                                             "--admin-token", admin_token});
    return api_client{server_->port()};
  }
  api_client restart_after(int signo) {
    server_->stop(signo);
    server_.reset();
    return start();
  }
};

// No stats read comes between the facts and the kill: these counts cannot have been written by a
// read or by the periodic write, only by the transactions that committed the facts.
TEST_F(KillAndCounters, CountsOfCommittedFactsAreExactAfterKill9WithoutAStatsRead) {
  auto api = start();
  const auto order_id = api.create_order("m-1", "k-1");
  ASSERT_TRUE(is_problem(api.post(orders, "k-2", order_body("m-1")), 409, "duplicate-business-id"));
  const auto payments = orders + "/" + order_id + "/payments";
  ASSERT_TRUE(has_status(api.post(payments, "k-pay-1", payment_body()), 201));
  ASSERT_TRUE(
      is_problem(api.post(payments, "k-pay-2", payment_body()), 409, "invalid-state-transition"));

  auto after = restart_after(SIGKILL);
  auto stats = after.stats();
  EXPECT_EQ(stats.value("orders", -1), 1);
  EXPECT_EQ(stats.value("payments", -1), 1);
  EXPECT_EQ(stats.value("provider_charges", -1), 1);
  EXPECT_EQ(stats.value("business_id_conflicts", -1), 1);
  EXPECT_EQ(stats.value("invalid_state_transitions", -1), 1);
  EXPECT_EQ(stats.value("max_keys_per_business_id", -1), 2);
  EXPECT_EQ(stats.value("orders_with_multiple_charges", -1), 0);
}

TEST_F(KillAndCounters, GracefulStopWritesTheTrafficCounters) {
  auto api = start();
  api.create_order("m-1", "k-1");
  ASSERT_TRUE(has_status(api.post(orders, "k-1", order_body("m-1")), 201));  // a replay
  ASSERT_TRUE(
      is_problem(api.post(orders, "k-1", order_body("m-2")), 422, "idempotency-key-mismatch"));

  auto after = restart_after(SIGTERM);
  auto stats = after.stats();
  EXPECT_EQ(stats.value("requests", -1), 3);
  EXPECT_EQ(stats.value("replays", -1), 1);
  EXPECT_EQ(stats.value("key_mismatches", -1), 1);
}

TEST_F(KillAndCounters, StatsReadBeforeAKillAreNeverLost) {
  auto api = start();
  api.create_order("m-1", "k-1");
  ASSERT_TRUE(has_status(api.post(orders, "k-1", order_body("m-1")), 201));
  const auto shown = api.stats();

  auto after = restart_after(SIGKILL);
  EXPECT_GE(after.stats().value("requests", -1), shown.value("requests", -2));
  EXPECT_GE(after.stats().value("replays", -1), shown.value("replays", -2));
}

// Creates run from several connections while the server is killed; then every key is sent again.
// An acknowledged order comes back as a replay of the very answer, an order whose answer was lost
// or never made is created now, and no merchant_order_id ends up with two orders.
TEST_F(KillAndCounters, Kill9DuringConcurrentCreatesLosesNoAcknowledgedOrderAndDuplicatesNone) {
  auto api = start();
  constexpr int clients = 4;
  constexpr int per_client = 150;
  constexpr int acknowledged_before_kill = 100;
  std::vector<std::vector<std::optional<std::string>>> answers(
      clients, std::vector<std::optional<std::string>>(per_client));
  std::atomic<int> acknowledged{0};
  std::vector<std::thread> threads;
  const auto port = server_->port();
  for (int c = 0; c < clients; ++c) {
    threads.emplace_back([&, c] {
      api_client mine{port};
      for (int i = 0; i < per_client; ++i) {
        const auto id = std::to_string(c) + "-" + std::to_string(i);
        auto r = mine.post(orders, "k-" + id, order_body("m-" + id));
        if (!r.ok()) return;  // the server is gone
        if (r.res.status == 201) {
          answers[c][i] = r.res.body;
          ++acknowledged;
        }
      }
    });
  }
  ASSERT_TRUE(eventually([&] { return acknowledged.load() >= acknowledged_before_kill; }));
  server_->stop(SIGKILL);
  for (auto& t : threads)
    t.join();
  server_.reset();

  auto after = start();
  for (int c = 0; c < clients; ++c) {
    for (int i = 0; i < per_client; ++i) {
      const auto id = std::to_string(c) + "-" + std::to_string(i);
      auto again = after.post(orders, "k-" + id, order_body("m-" + id));
      ASSERT_TRUE(has_status(again, 201)) << id;
      if (answers[c][i]) {
        EXPECT_TRUE(replayed_header_is(again, "true")) << id;
        EXPECT_EQ(again.res.body, *answers[c][i]) << id;
      }
    }
  }
  auto stats = after.stats();
  EXPECT_EQ(stats.value("orders", -1), clients * per_client);
  EXPECT_EQ(stats.value("idempotency_records", -1), clients * per_client);
  EXPECT_EQ(stats.value("business_id_conflicts", -1), 0);
}

}  // namespace
}  // namespace idem::kit
