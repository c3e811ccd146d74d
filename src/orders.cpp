#include "idem/orders.hpp"

#include <charconv>
#include <string_view>

#include "http_facts.hpp"
#include "intent_builder.hpp"

namespace idem::orders {
namespace {

// A string that JSON takes between quotes as it is, and that nlohmann::json's dump() writes
// unchanged: printable ASCII other than '"' and '\\'. Anything else (controls, UTF-8, which
// dump() also validates) is left to nlohmann::json.
bool verbatim(std::string_view s) noexcept {
  for (const unsigned char c : s) {
    if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') return false;
  }
  return true;
}

bool verbatim(const order_request& req) noexcept {
  if (!verbatim(req.merchant_order_id) || !verbatim(req.customer_id) || !verbatim(req.currency))
    return false;
  for (const auto& item : req.items) {
    if (!verbatim(item.sku)) return false;
  }
  return true;
}

// An object's `"name":value` members, each after the first preceded by a comma, then close();
// the caller writes them in nlohmann::json's (sorted) key order.
class object_writer {
 public:
  explicit object_writer(std::string& out) : out_(out) { out_.push_back('{'); }
  void close() { out_.push_back('}'); }

  std::string& key(std::string_view name) {
    if (!first_) out_.push_back(',');
    first_ = false;
    out_.push_back('"');
    out_.append(name);
    return out_.append("\":");
  }
  void number(std::string_view name, std::int64_t v) {
    key(name);
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out_.append(digits, end);
  }
  void string(std::string_view name, std::string_view v) {
    key(name).push_back('"');
    out_.append(v).push_back('"');
  }

 private:
  std::string& out_;
  bool first_ = true;
};

// What object_writer writes for a key ("name": and the comma before all but the first), a
// number and a string: verbatim_body_size adds them up in order_body's order.
std::size_t key_size(std::string_view name, bool first) {
  return (first ? 0 : 1) + name.size() + 3;
}
std::size_t number_size(std::int64_t v) {
  char digits[24];
  return static_cast<std::size_t>(std::to_chars(digits, digits + sizeof digits, v).ptr - digits);
}
std::size_t string_size(std::string_view v) {
  return v.size() + 2;
}

// The length of order_body's output for a request that verbatim() accepts.
std::size_t verbatim_body_size(const order_request& req) {
  std::size_t n = 2 + key_size("amount_minor", true) + number_size(req.amount_minor) +
                  key_size("currency", false) + string_size(req.currency) +
                  key_size("customer_id", false) + string_size(req.customer_id) +
                  key_size("items", false) + 2 + key_size("merchant_order_id", false) +
                  string_size(req.merchant_order_id);
  for (std::size_t i = 0; i < req.items.size(); ++i) {
    const auto& item = req.items[i];
    n += (i > 0 ? 1 : 0) + 2 + key_size("quantity", true) + number_size(item.quantity) +
         key_size("sku", false) + string_size(item.sku) + key_size("unit_price_minor", false) +
         number_size(item.unit_price_minor);
  }
  return n;
}

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

std::string order_body(const order_request& req) {
  if (!verbatim(req)) return order_payload(req).dump();
  std::string out;
  // Exactly its length: the body lives as long as its intent (the store keeps finished intents
  // too), so it holds its bytes, not room for the widest numbers (about 50-75 bytes an order).
  out.reserve(verbatim_body_size(req));
  object_writer order(out);
  order.number("amount_minor", req.amount_minor);
  order.string("currency", req.currency);
  order.string("customer_id", req.customer_id);
  order.key("items").push_back('[');
  for (std::size_t i = 0; i < req.items.size(); ++i) {
    if (i > 0) out.push_back(',');
    object_writer item(out);
    item.number("quantity", req.items[i].quantity);
    item.string("sku", req.items[i].sku);
    item.number("unit_price_minor", req.items[i].unit_price_minor);
    item.close();
  }
  out.push_back(']');
  order.string("merchant_order_id", req.merchant_order_id);
  order.close();
  return out;
}

namespace {

// The lookup of every order's create, but for its business ID (each order's own): shared by
// them all rather than a copy of its strings per order. Immutable.
const std::shared_ptr<const business_lookup>& order_created_shared() {
  static const auto shared = std::make_shared<const business_lookup>(order_created_lookup({}));
  return shared;
}

}  // namespace

intent create(const order_request& req, key_format format) {
  return detail::intent_builder::from_json_text(idempotency_key::mint(format),
                                                {"POST", "/v1/orders"}, order_body(req),
                                                order_created_shared(), req.merchant_order_id);
}

intent create(const order_request& req, std::string path, business_lookup lookup,
              key_format format) {
  return detail::intent_builder::from_json_text(
      idempotency_key::mint(format), {"POST", std::move(path)}, order_body(req), std::move(lookup));
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
