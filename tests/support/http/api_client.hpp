#pragma once
// Test helpers that speak the mock server's API: tenant requests with a token and an
// Idempotency-Key, and the admin endpoints under /_mock/.

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/http/http_client.hpp"

namespace idem::kit {

/// The orders collection's path; an order's payments and its cancel under it.
inline const std::string orders = "/v1/orders";
[[nodiscard]] inline std::string payments_of(const std::string& order_id) {
  return orders + "/" + order_id + "/payments";
}
[[nodiscard]] inline std::string cancel_of(const std::string& order_id) {
  return orders + "/" + order_id + "/cancel";
}

/// A valid create-order body for `merchant_order_id` (amount 1500 = 2 x 500 + 1 x 500).
[[nodiscard]] nlohmann::json order_body(const std::string& merchant_order_id);
/// A valid payment body.
[[nodiscard]] nlohmann::json payment_body(std::int64_t amount_minor = 1500,
                                          std::string payment_method = "card_visa");

class api_client {
 public:
  explicit api_client(std::uint16_t port, std::string token = "tenant-a");

  /// POST with `Authorization: Bearer token` and `Idempotency-Key: key` (omitted when empty).
  http_result post(const std::string& target, const std::string& key, const nlohmann::json& body,
                   const mock::header_list& extra = {},
                   std::chrono::milliseconds timeout = std::chrono::seconds(15));
  http_result get(const std::string& target);

  /// Creates an order and returns its id (asserting 201).
  std::string create_order(const std::string& merchant_order_id, const std::string& key);

  // Admin endpoints (with the test admin token).
  http_result admin(const std::string& method, const std::string& target,
                    const nlohmann::json& body = nullptr);
  [[nodiscard]] nlohmann::json stats();
  void set_faults(const nlohmann::json& config);
  void advance_clock(double seconds);

  http_client& raw() noexcept { return http_; }

 private:
  http_client http_;
  std::string token_;
};

}  // namespace idem::kit
