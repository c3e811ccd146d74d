// Integration tests of the shop's checkout against idem's mock server, written as an app's own
// test suite would be: the server comes from the test kit (idem::testing), runs under a named
// fault preset, and the tests assert what the app promises its users (every cart ends paid or
// refused, none left in doubt) and what the server saw (nothing created or charged twice).
#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checkout.hpp"
#include "idem/observer.hpp"
#include "idem/testing/kit.hpp"

namespace {

using namespace std::chrono_literals;
namespace kit = idem::kit;

// A client for `server`, as the app would configure it, with a deadline generous enough for
// every preset: the slowest answer a preset makes is a few seconds.
idem::client_options client_options(const kit::mock_server_process& server) {
  idem::client_options options;
  options.base_url = server.url();
  options.credentials = idem::bearer_token{server.tenant_token()};
  options.deadline.total = 60s;
  options.rng_seed = 7;  // the jitter, for a repeatable run
  return options;
}

std::vector<shop::cart> carts(int n) {
  std::vector<shop::cart> out;
  for (int i = 0; i < n; ++i)
    out.push_back({.id = "cart-" + std::to_string(i), .customer = "c-1", .amount_minor = 500 + i});
  return out;
}

// Buys every cart at once, with `observer` (if any) watching the client.
std::vector<shop::checkout_result> buy_all(const kit::mock_server_process& server,
                                           const std::vector<shop::cart>& all,
                                           std::shared_ptr<idem::observer> observer = nullptr) {
  boost::asio::io_context io;
  auto options = client_options(server);
  options.observer = std::move(observer);
  idem::client client{io.get_executor(), options};
  std::vector<shop::checkout_result> results;
  for (const auto& c : all) {
    boost::asio::co_spawn(
        io,
        [&, c]() -> boost::asio::awaitable<void> {
          results.push_back(co_await shop::buy(client, c, shop::order_for(c)));
        },
        boost::asio::detached);
  }
  io.run();
  return results;
}

bool final(const idem::outcome& o) {
  return o.kind() == idem::outcome_kind::succeeded || o.kind() == idem::outcome_kind::rejected;
}

// Every cart ends paid or refused, never in doubt; the server holds exactly the orders and
// charges the app was told about, and its invariants hold.
void expect_every_cart_settled(const kit::mock_server_process& server,
                               const std::vector<shop::checkout_result>& results,
                               std::size_t carts) {
  ASSERT_EQ(results.size(), carts);
  std::int64_t created = 0;
  std::int64_t paid = 0;
  for (const auto& r : results) {
    EXPECT_TRUE(final(r.order)) << r.cart_id << " order: " << r.order;
    if (r.order.kind() != idem::outcome_kind::succeeded) continue;
    ++created;
    ASSERT_TRUE(r.payment.has_value()) << r.cart_id;
    EXPECT_TRUE(final(*r.payment)) << r.cart_id << " payment: " << *r.payment;
    if (r.payment->kind() == idem::outcome_kind::succeeded) ++paid;
  }
  auto stats = server.admin().stats();
  ASSERT_TRUE(stats.ok()) << stats;
  EXPECT_EQ(stats->orders, created) << *stats;
  EXPECT_EQ(stats->provider_charges - stats->provider_refunds, paid) << *stats;
  const auto invariants = server.admin().check_invariants();
  EXPECT_TRUE(invariants.ok()) << invariants.describe();
}

class checkout_under_preset : public ::testing::TestWithParam<const char*> {};

TEST_P(checkout_under_preset, EveryCartEndsPaidOrRefusedAndNothingHappensTwice) {
  // A short lease: an execution the preset crashes is taken over within two seconds.
  auto server = kit::mock_server_process::start({.preset = GetParam(), .lease = 2s});
  ASSERT_TRUE(server.ok()) << server;
  const auto all = carts(24);
  const auto results = buy_all(*server, all);
  expect_every_cart_settled(*server, results, all.size());
  // The preset really got in the way (it is seeded: the same faults every run).
  EXPECT_GT(server->admin().stats().value().faults_injected, 0);
}

INSTANTIATE_TEST_SUITE_P(Presets, checkout_under_preset,
                         ::testing::Values("lost-responses", "flaky-gateway", "slow-provider",
                                           "everything"),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (auto& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

// Kills the server (SIGKILL) and restarts it on the same database and port as soon as one
// payment has succeeded. The server holds the other payments (a delay fault on all but the last
// payment it claims): they are executing when the kill comes, which the rule's count proves.
class crash_after_first_payment final : public idem::observer {
 public:
  crash_after_first_payment(kit::mock_server_process& server, std::int64_t held)
      : server_(server), held_(held) {}
  void on_attempt_started(const idem::trace::attempt_started& e) override {
    if (e.path.ends_with("/payments")) payment_keys_.emplace(e.ids.key);
  }
  void on_attempt_finished(const idem::trace::attempt_finished& e) override {
    if (crashed_ || e.status != 201 || !payment_keys_.contains(std::string(e.ids.key))) return;
    // The delay rule's `times` left says how many payments it is holding right now.
    const auto rules = server_.admin().faults();
    if (rules.ok()) executing_at_kill_ = held_ - (*rules)["rules"][0]["times"].get<std::int64_t>();
    crashed_ = server_.kill().ok() && server_.restart().ok();
  }
  [[nodiscard]] bool crashed() const { return crashed_; }
  [[nodiscard]] std::int64_t executing_at_kill() const { return executing_at_kill_; }

 private:
  kit::mock_server_process& server_;
  std::int64_t held_;
  std::set<std::string> payment_keys_;
  bool crashed_ = false;
  std::int64_t executing_at_kill_ = 0;
};

TEST(CheckoutCrash, AServerKilledMidCheckoutLosesNothingAndDoublesNothing) {
  // The first seven payments the server claims are held three seconds; the eighth goes
  // through at once and sets off the crash. The app's retries, with the same keys, must finish
  // every payment, each charged once.
  auto server = kit::mock_server_process::start(
      {.faults = kit::fault_set{.rules = {kit::fault::delay(3s).on_pay_order().times(7)}},
       .lease = 2s});
  ASSERT_TRUE(server.ok()) << server;
  const auto all = carts(8);
  const auto crash = std::make_shared<crash_after_first_payment>(*server, 7);
  const auto results = buy_all(*server, all, crash);
  ASSERT_TRUE(crash->crashed());
  EXPECT_EQ(crash->executing_at_kill(), 7);
  expect_every_cart_settled(*server, results, all.size());
  for (const auto& r : results) {
    ASSERT_TRUE(r.payment.has_value()) << r.cart_id;
    EXPECT_EQ(r.payment->kind(), idem::outcome_kind::succeeded) << r.cart_id;
  }
}

}  // namespace
