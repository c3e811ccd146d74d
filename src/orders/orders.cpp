#include "idem/orders.hpp"

#include <array>
#include <charconv>
#include <cstring>
#include <string_view>

#include "intent/intent_builder.hpp"
#include "util/http_facts.hpp"

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

// Where the writers below put their bytes: a string, a count of them, or a fixed buffer that
// says when something did not fit (what did not is dropped).
struct string_sink {
  std::string& out;
  void put(char c) { out.push_back(c); }
  void put(std::string_view s) { out.append(s); }
};

struct counting_sink {
  std::size_t bytes = 0;
  void put(char) { ++bytes; }
  void put(std::string_view s) { bytes += s.size(); }
};

struct buffer_sink {
  char* next;
  char* end;
  bool full = false;
  void put(char c) {
    if (next == end) {
      full = true;
      return;
    }
    *next++ = c;
  }
  void put(std::string_view s) {
    if (static_cast<std::size_t>(end - next) < s.size()) {
      full = true;
      next = end;
      return;
    }
    std::memcpy(next, s.data(), s.size());
    next += s.size();
  }
};

// An object's `"name":value` members, each after the first preceded by a comma, then close();
// the caller writes them in nlohmann::json's (sorted) key order.
template <class Sink>
class object_writer {
 public:
  explicit object_writer(Sink& out) : out_(out) { out_.put('{'); }
  void close() { out_.put('}'); }

  void key(std::string_view name) {
    if (!first_) out_.put(',');
    first_ = false;
    out_.put('"');
    out_.put(name);
    out_.put("\":");
  }
  void number(std::string_view name, std::int64_t v) {
    key(name);
    char digits[24];
    const auto end = std::to_chars(digits, digits + sizeof digits, v).ptr;
    out_.put(std::string_view(digits, static_cast<std::size_t>(end - digits)));
  }
  void string(std::string_view name, std::string_view v) {
    key(name);
    out_.put('"');
    out_.put(v);
    out_.put('"');
  }

 private:
  Sink& out_;
  bool first_ = true;
};

// The body of an order that verbatim() accepts, as nlohmann::json's dump() writes it.
template <class Sink>
void write_order(Sink& out, const order_request& req) {
  object_writer<Sink> order(out);
  order.number("amount_minor", req.amount_minor);
  order.string("currency", req.currency);
  order.string("customer_id", req.customer_id);
  order.key("items");
  out.put('[');
  for (std::size_t i = 0; i < req.items.size(); ++i) {
    if (i > 0) out.put(',');
    object_writer<Sink> item(out);
    item.number("quantity", req.items[i].quantity);
    item.string("sku", req.items[i].sku);
    item.number("unit_price_minor", req.items[i].unit_price_minor);
    item.close();
  }
  out.put(']');
  order.string("merchant_order_id", req.merchant_order_id);
  order.close();
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
  // The body lives as long as its intent (the store keeps finished intents too), so it holds
  // exactly its bytes, not room for the widest numbers. Most orders fit in a buffer on the
  // stack: written there in one pass, then copied into a string of their length; a larger one
  // is counted first, then written into a string reserved to its length.
  std::array<char, 1024> stack;
  buffer_sink small{stack.data(), stack.data() + stack.size()};
  write_order(small, req);
  if (!small.full) return std::string(stack.data(), small.next);
  counting_sink count;
  write_order(count, req);
  std::string out;
  out.reserve(count.bytes);
  string_sink large{out};
  write_order(large, req);
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

std::optional<std::string> created_order_id(const outcome& o) {
  if (o.kind() != outcome_kind::succeeded) return std::nullopt;
  return created_resource_id(o.body());
}

}  // namespace idem::orders
