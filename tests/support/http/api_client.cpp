#include "tests/support/http/api_client.hpp"

#include <gtest/gtest.h>

#include "tests/support/servers/running_server.hpp"

namespace idem::kit {

nlohmann::json order_body(const std::string& merchant_order_id) {
  return {{"merchant_order_id", merchant_order_id},
          {"customer_id", "cus_1"},
          {"currency", "EUR"},
          {"amount_minor", 1500},
          {"items",
           {{{"sku", "book"}, {"quantity", 2}, {"unit_price_minor", 500}},
            {{"sku", "pen"}, {"quantity", 1}, {"unit_price_minor", 500}}}}};
}

nlohmann::json payment_body(std::int64_t amount_minor, std::string payment_method) {
  return {{"amount_minor", amount_minor},
          {"currency", "EUR"},
          {"payment_method", std::move(payment_method)}};
}

api_client::api_client(std::uint16_t port, std::string token)
    : http_(port), token_(std::move(token)) {}

http_result api_client::post(const std::string& target, const std::string& key,
                             const nlohmann::json& body, const mock::header_list& extra,
                             std::chrono::milliseconds timeout) {
  mock::header_list headers{{"Authorization", "Bearer " + token_}};
  if (!key.empty()) headers.emplace_back("Idempotency-Key", key);
  headers.insert(headers.end(), extra.begin(), extra.end());
  return http_.send("POST", target, headers, body.dump(), timeout);
}

http_result api_client::get(const std::string& target) {
  return http_.send("GET", target, {{"Authorization", "Bearer " + token_}});
}

std::string api_client::create_order(const std::string& merchant_order_id, const std::string& key) {
  auto r = post("/v1/orders", key, order_body(merchant_order_id));
  EXPECT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 201) << r.res.body;
  return r.ok() && r.res.status == 201 ? r.res.json().at("id").get<std::string>() : std::string{};
}

http_result api_client::admin(const std::string& method, const std::string& target,
                              const nlohmann::json& body) {
  return http_.send(method, target, {{"Authorization", std::string{"Bearer "} + admin_token}},
                    body.is_null() ? std::string{} : body.dump());
}

nlohmann::json api_client::stats() {
  auto r = admin("GET", "/_mock/stats");
  EXPECT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 200) << r.res.body;
  return r.ok() ? r.res.json() : nlohmann::json::object();
}

void api_client::set_faults(const nlohmann::json& config) {
  auto r = admin("PUT", "/_mock/faults", config);
  ASSERT_TRUE(r.ok()) << r.ec.message();
  ASSERT_EQ(r.res.status, 200) << r.res.body;
}

void api_client::advance_clock(double seconds) {
  auto r = admin("POST", "/_mock/clock", {{"advance_s", seconds}});
  ASSERT_TRUE(r.ok()) << r.ec.message();
  ASSERT_EQ(r.res.status, 200) << r.res.body;
}

}  // namespace idem::kit
