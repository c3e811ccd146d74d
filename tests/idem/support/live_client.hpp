#pragma once
// Shared by the live integration tests: the real idem::client (its default curl_transport and
// asio_scheduler) against the in-process mock server over real sockets, and small builders for
// the fault rules of contract section 6.

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "idem/client.hpp"
#include "idem/orders.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/unused_port.hpp"

namespace idem::test::live {

using namespace std::chrono_literals;

// The tenant both the client and the api_client helpers act as (orders belong to it).
inline constexpr const char* tenant = "tenant-a";

inline std::string url_of(std::uint16_t port) {
  return "http://127.0.0.1:" + std::to_string(port);
}

// Short budgets so that every fault scenario settles in seconds, and seeded jitter.
inline client_options live_options(std::uint16_t port) {
  client_options o;
  o.base_url = url_of(port);
  o.credentials = bearer_token{tenant};
  o.deadline = {.total = 10s, .lookup_reserve = 2s, .min_attempt = 100ms, .attempt_timeout = 2s};
  o.backoff = full_jitter{.base = 20ms, .cap = 200ms};
  o.rng_seed = 7;
  return o;
}

// Runs a fresh io_context with a real client until `i` completes. The bound only turns a hang
// into a failure; it is far beyond any deadline used here.
inline outcome submit_live(const client_options& options, const intent& i) {
  boost::asio::io_context io;
  std::optional<outcome> got;
  {
    client c{io.get_executor(), options};
    c.async_submit(i, [&](outcome o) { got = std::move(o); });
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!got && std::chrono::steady_clock::now() < give_up) {
      if (io.run_one_until(give_up) == 0 && io.stopped()) break;
    }
  }
  io.restart();
  io.poll();  // lets the transport finish what the client's destruction cancelled
  EXPECT_TRUE(got.has_value()) << "the submission never completed";
  return got.value_or(outcome{});
}

inline orders::order_request order_of(std::string merchant_order_id, std::string currency = "EUR") {
  return {.merchant_order_id = std::move(merchant_order_id),
          .customer_id = "c-1",
          .currency = std::move(currency),
          .amount_minor = 1500,
          .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}};
}

inline orders::payment_request payment_of() {
  return {.amount_minor = 1500, .currency = "EUR", .payment_method = "card_visa"};
}

// The fault-rule builders (contract section 6) shared with the mock server's tests.
using idem::kit::on_create;
using idem::kit::on_pay;
using idem::kit::only;
inline nlohmann::json rule(std::string fault, std::string route,
                           nlohmann::json params = nlohmann::json::object()) {
  return idem::kit::fault_rule(std::move(fault), std::move(route), std::move(params));
}

// What the client told its observer: each write's status (0 without a response) and each wait.
// Runs on the client's strand, which submit_live drives on the test's thread.
struct recording_observer final : observer {
  std::vector<int> statuses;
  std::vector<std::chrono::milliseconds> waits;
  void on_attempt_finished(const trace::attempt_finished& e) override {
    statuses.push_back(e.status);
  }
  void on_wait(const trace::wait& e) override { waits.push_back(e.delay); }
};

// A port on 127.0.0.1 where nothing listens.
using idem::kit::unused_port;

// The server's books after one order was created exactly once.
inline void expect_one_order(const nlohmann::json& stats) {
  EXPECT_EQ(stats["orders"], 1) << stats.dump();
  EXPECT_EQ(stats["max_keys_per_business_id"], 1) << stats.dump();
}

// The server's books after one payment was captured exactly once.
inline void expect_one_charge(const nlohmann::json& stats) {
  EXPECT_EQ(stats["payments"], 1) << stats.dump();
  EXPECT_EQ(stats["provider_charges"], 1) << stats.dump();
  EXPECT_EQ(stats["orders_with_multiple_charges"], 0) << stats.dump();
}

}  // namespace idem::test::live
