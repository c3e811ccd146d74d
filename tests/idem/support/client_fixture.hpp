#pragma once
// Shared by the client tests: an io_context driven by hand, a virtual clock, a scripted
// transport, and helpers that build intents and answers.

#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <functional>
#include <memory>
#include <optional>

#include "idem/client.hpp"
#include "idem/orders.hpp"
#include "idem/testing/fake_scheduler.hpp"
#include "idem/testing/fake_transport.hpp"

namespace idem::test {

using namespace std::chrono_literals;
using idem::kit::fake_reply;
using idem::kit::fake_scheduler;
using idem::kit::fake_transport;

inline const std::string* header_of(const http_request& r, std::string_view name) {
  for (const auto& [k, v] : r.headers) {
    if (k == name) return &v;
  }
  return nullptr;
}

// Answers POSTs from `posts` in order (the last one repeats) and GETs with `get` (default: an
// empty list of orders).
inline fake_transport::responder script(
    std::vector<fake_reply> posts, std::function<fake_reply(const http_request&)> get = nullptr) {
  auto n = std::make_shared<std::size_t>(0);
  return [posts = std::move(posts), get = std::move(get), n](const http_request& r) {
    if (r.method == "GET") return get ? get(r) : idem::kit::reply(200, R"({"data":[]})");
    const auto i = std::min(*n, posts.size() - 1);
    ++*n;
    return posts[i];
  };
}

inline orders::order_request sample_order(std::string merchant_order_id = "m-1") {
  return {.merchant_order_id = std::move(merchant_order_id),
          .customer_id = "c-1",
          .currency = "EUR",
          .amount_minor = 1500,
          .items = {{.sku = "sku-1", .quantity = 3, .unit_price_minor = 500}}};
}

// The order the server would hold for `req` (what GET /v1/orders returns), with its own fields.
inline nlohmann::json order_json(const orders::order_request& req, std::string status = "CREATED",
                                 nlohmann::json payments = nlohmann::json::array()) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& i : req.items) {
    items.push_back(
        {{"sku", i.sku}, {"quantity", i.quantity}, {"unit_price_minor", i.unit_price_minor}});
  }
  return {{"id", "ord_1"},
          {"merchant_order_id", req.merchant_order_id},
          {"customer_id", req.customer_id},
          {"currency", req.currency},
          {"amount_minor", req.amount_minor},
          {"items", items},
          {"status", status},
          {"payments", payments}};
}

class client_test : public ::testing::Test {
 protected:
  client_options options() const {
    client_options o;
    o.base_url = "http://api.test";
    o.credentials = bearer_token{"token-a"};
    o.rng_seed = 42;
    return o;
  }
  // options() with `store` and one failed attempt allowed: a submission ends after its first
  // attempt that does not decide, so tests of resubmission see each submission separately.
  client_options one_attempt_with(std::shared_ptr<intent_store> store) const {
    auto o = options();
    o.store = std::move(store);
    o.max_failed_attempts = 1;
    return o;
  }
  std::unique_ptr<client> make_client(client_options o) {
    return std::make_unique<client>(io.get_executor(), std::move(o), net, clock);
  }
  std::unique_ptr<client> make_client() { return make_client(options()); }

  // Runs everything that is ready (in auto-advance mode: the whole retry loop, in virtual time).
  void drain() {
    io.restart();
    while (io.poll() > 0) {
    }
  }
  // Submits and drives the loop to its end.
  outcome submit(client& c, const intent& i) {
    std::optional<outcome> got;
    c.async_submit(i, [&](outcome o) { got = std::move(o); });
    drain();
    EXPECT_TRUE(got.has_value()) << "the submission did not complete";
    return got.value_or(outcome{});
  }

  boost::asio::io_context io;
  std::shared_ptr<fake_scheduler> clock = std::make_shared<fake_scheduler>(io.get_executor());
  std::shared_ptr<fake_transport> net = std::make_shared<fake_transport>(io.get_executor(), clock);
};

}  // namespace idem::test
