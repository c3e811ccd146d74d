#include "idem/orders.hpp"

#include "http_facts.hpp"

namespace idem::orders {
namespace {

nlohmann::json payment_payload(const payment_request& req) {
  return {{"amount_minor", req.amount_minor},
          {"currency", req.currency},
          {"payment_method", req.payment_method}};
}

}  // namespace

intent create(const order_request& req, key_format format) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& item : req.items) {
    items.push_back({{"sku", item.sku},
                     {"quantity", item.quantity},
                     {"unit_price_minor", item.unit_price_minor}});
  }
  nlohmann::json payload = {{"merchant_order_id", req.merchant_order_id},
                            {"customer_id", req.customer_id},
                            {"currency", req.currency},
                            {"amount_minor", req.amount_minor},
                            {"items", std::move(items)}};
  return intent::create({"POST", "/v1/orders"}, std::move(payload),
                        {business_lookup::kind::order_created, req.merchant_order_id}, format);
}

intent pay(const std::string& order_id, const payment_request& req, key_format format) {
  nlohmann::json payload = payment_payload(req);
  return intent::create({"POST", "/v1/orders/" + detail::percent_encode(order_id) + "/payments"},
                        std::move(payload), {business_lookup::kind::payment_captured, order_id},
                        format);
}

planned_intent plan_payment(const intent& order, const payment_request& req, key_format format) {
  nlohmann::json payload = payment_payload(req);
  return planned_intent::create("POST", "/v1/orders/{id}/payments", std::move(payload),
                                business_lookup::kind::payment_captured, order, format);
}

intent cancel(const std::string& order_id, const std::string& reason, key_format format) {
  // The reason is optional: an empty one is left out rather than sent as "".
  nlohmann::json payload = nlohmann::json::object();
  if (!reason.empty()) payload["reason"] = reason;
  return intent::create({"POST", "/v1/orders/" + detail::percent_encode(order_id) + "/cancel"},
                        std::move(payload), {business_lookup::kind::order_cancelled, order_id},
                        format);
}

}  // namespace idem::orders
