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

business_lookup order_created_lookup(std::string merchant_order_id) {
  return business_lookup{.url = "/v1/orders?merchant_order_id={business_id}",
                         .business_id = std::move(merchant_order_id),
                         .select = "/data",
                         .identify = "/merchant_order_id",
                         .match = {{"/amount_minor"}, {"/currency"}, {"/items"}},
                         .conflict_on_other = true};
}

business_lookup payment_captured_lookup(std::string order_id) {
  // A declined payment makes no payment row, so any row of ours is a capture; a status other
  // than CAPTURED (e.g. refunded later) still proves that our payment happened.
  return business_lookup{.url = "/v1/orders/{business_id}",
                         .business_id = std::move(order_id),
                         .select = "/payments",
                         .match = {{"/amount_minor"}, {"/currency"}}};
}

business_lookup order_cancelled_lookup(std::string order_id) {
  return business_lookup{.url = "/v1/orders/{business_id}",
                         .business_id = std::move(order_id),
                         .match = {{.pointer = "/status", .equals = "CANCELLED"}}};
}

nlohmann::json order_payload(const order_request& req) {
  nlohmann::json items = nlohmann::json::array();
  for (const auto& item : req.items) {
    items.push_back({{"sku", item.sku},
                     {"quantity", item.quantity},
                     {"unit_price_minor", item.unit_price_minor}});
  }
  return {{"merchant_order_id", req.merchant_order_id},
          {"customer_id", req.customer_id},
          {"currency", req.currency},
          {"amount_minor", req.amount_minor},
          {"items", std::move(items)}};
}

intent create(const order_request& req, key_format format) {
  return intent::create({"POST", "/v1/orders"}, order_payload(req),
                        order_created_lookup(req.merchant_order_id), format);
}

intent pay(const std::string& order_id, const payment_request& req, key_format format) {
  nlohmann::json payload = payment_payload(req);
  return intent::create({"POST", "/v1/orders/" + detail::percent_encode(order_id) + "/payments"},
                        std::move(payload), payment_captured_lookup(order_id), format);
}

planned_intent plan_payment(const intent& order, const payment_request& req, key_format format) {
  nlohmann::json payload = payment_payload(req);
  return planned_intent::create("POST", "/v1/orders/{id}/payments", std::move(payload),
                                payment_captured_lookup({}), order, format);
}

intent cancel(const std::string& order_id, const std::string& reason, key_format format) {
  // The reason is optional: an empty one is left out rather than sent as "".
  nlohmann::json payload = nlohmann::json::object();
  if (!reason.empty()) payload["reason"] = reason;
  return intent::create({"POST", "/v1/orders/" + detail::percent_encode(order_id) + "/cancel"},
                        std::move(payload), order_cancelled_lookup(order_id), format);
}

}  // namespace idem::orders
