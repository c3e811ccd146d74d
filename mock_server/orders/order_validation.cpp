#include "mock_server/orders/order_validation.hpp"

#include <algorithm>
#include <cstddef>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

namespace idem::mock {

namespace {

using json = nlohmann::json;

constexpr std::size_t max_id_length = 255;
constexpr std::size_t max_reason_length = 1000;

// The contract counts characters, not bytes. Parsed strings are valid UTF-8, so every byte that
// is not a continuation byte (10xxxxxx) starts one code point.
std::size_t utf8_length(std::string_view s) noexcept {
  std::size_t n = 0;
  for (char c : s) {
    if ((static_cast<unsigned char>(c) & 0xC0) != 0x80) ++n;
  }
  return n;
}

// Collects errors with their field path, so each check is one line at the call site.
class error_list {
 public:
  void add(std::string field, std::string message) {
    errors_.push_back({std::move(field), std::move(message)});
  }
  [[nodiscard]] std::vector<field_error> take() && { return std::move(errors_); }

 private:
  std::vector<field_error> errors_;
};

// A required member, or nullptr after reporting it missing.
const json* require(const json& object, const char* key, const std::string& field,
                    error_list& errors) {
  auto it = object.find(key);
  if (it == object.end()) {
    errors.add(field, "is required");
    return nullptr;
  }
  return &*it;
}

std::string join(const std::string& prefix, const char* key) {
  return prefix.empty() ? std::string{key} : prefix + "." + key;
}

// The value of an integer member within [min, max], or nullopt after reporting why not. JSON
// floats (even 10.0), booleans and strings are not integers: nlohmann keeps integers as
// number_integer / number_unsigned and anything with a fraction or exponent as number_float.
std::optional<std::int64_t> integer_in(const json& object, const char* key,
                                       const std::string& prefix, std::int64_t min,
                                       std::int64_t max, error_list& errors) {
  const std::string field = join(prefix, key);
  const json* value = require(object, key, field, errors);
  if (value == nullptr) return std::nullopt;
  const std::string range =
      "must be an integer from " + std::to_string(min) + " to " + std::to_string(max);
  if (!value->is_number_integer()) {  // false for booleans and floats
    errors.add(field, range);
    return std::nullopt;
  }
  // Compare unsigned values before converting: a uint64 above INT64_MAX must not wrap.
  if (value->is_number_unsigned()) {
    const auto u = value->get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(max) || (min > 0 && u < static_cast<std::uint64_t>(min))) {
      errors.add(field, range);
      return std::nullopt;
    }
    return static_cast<std::int64_t>(u);
  }
  const auto i = value->get<std::int64_t>();
  if (i < min || i > max) {
    errors.add(field, range);
    return std::nullopt;
  }
  return i;
}

void check_string(const json& object, const char* key, const std::string& prefix,
                  std::size_t min_length, std::size_t max_length, bool required,
                  error_list& errors) {
  const std::string field = join(prefix, key);
  auto it = object.find(key);
  if (it == object.end()) {
    if (required) errors.add(field, "is required");
    return;
  }
  const std::string message = "must be a string of " + std::to_string(min_length) + " to " +
                              std::to_string(max_length) + " characters";
  if (!it->is_string()) {
    errors.add(field, message);
    return;
  }
  const std::size_t length = utf8_length(it->get_ref<const std::string&>());
  if (length < min_length || length > max_length) errors.add(field, message);
}

void check_id(const json& object, const char* key, const std::string& prefix, error_list& errors) {
  check_string(object, key, prefix, 1, max_id_length, /*required=*/true, errors);
}

void check_currency(const json& object, error_list& errors) {
  const json* value = require(object, "currency", "currency", errors);
  if (value == nullptr) return;
  const auto is_code = [](const json& v) {
    if (!v.is_string()) return false;
    const auto& s = v.get_ref<const std::string&>();
    if (s.size() != 3) return false;
    for (char c : s) {
      if (c < 'A' || c > 'Z') return false;
    }
    return true;
  };
  if (!is_code(*value)) errors.add("currency", "must be three capital letters (ISO 4217)");
}

std::optional<std::int64_t> check_amount(const json& object, error_list& errors) {
  return integer_in(object, "amount_minor", "", 1, max_amount_minor, errors);
}

// The sum of the line totals, or `exceeds_max` when it is above max_amount_minor (it can then
// never equal a valid amount, and computing it exactly could overflow).
struct line_sum {
  std::int64_t value = 0;
  bool exceeds_max = false;
};

// Adds quantity * unit_price to `sum`. Both factors and the running value are in
// [0, max_amount_minor], so the division-based check itself cannot overflow.
void add_line_total(std::int64_t quantity, std::int64_t unit_price, line_sum& sum) {
  if (sum.exceeds_max) return;
  const std::int64_t room = max_amount_minor - sum.value;
  if (unit_price != 0 && quantity > room / unit_price) {
    sum.exceeds_max = true;
    return;
  }
  sum.value += quantity * unit_price;
}

// Validates `items`; returns their sum only when every item is valid.
std::optional<line_sum> check_items(const json& body, error_list& errors) {
  const json* items = require(body, "items", "items", errors);
  if (items == nullptr) return std::nullopt;
  if (!items->is_array() || items->empty()) {
    errors.add("items", "must be a non-empty array");
    return std::nullopt;
  }
  if (items->size() > max_items_per_order) {
    errors.add("items", "must have at most " + std::to_string(max_items_per_order) + " items");
    return std::nullopt;
  }
  bool all_valid = true;
  line_sum sum;
  for (std::size_t i = 0; i < items->size(); ++i) {
    const json& item = (*items)[i];
    const std::string prefix = "items[" + std::to_string(i) + "]";
    if (!item.is_object()) {
      errors.add(prefix, "must be an object");
      all_valid = false;
      continue;
    }
    check_id(item, "sku", prefix, errors);
    // Line values are bounded like amounts: above 2^53-1 they are not exact for JSON clients
    // that read numbers as doubles.
    auto quantity = integer_in(item, "quantity", prefix, 1, max_amount_minor, errors);
    auto unit_price = integer_in(item, "unit_price_minor", prefix, 0, max_amount_minor, errors);
    if (!quantity || !unit_price) {
      all_valid = false;
      continue;
    }
    add_line_total(*quantity, *unit_price, sum);
  }
  if (!all_valid) return std::nullopt;
  return sum;
}

bool check_object(const json& body, error_list& errors) {
  if (body.is_object()) return true;
  errors.add("body", "must be a JSON object");
  return false;
}

}  // namespace

std::vector<field_error> validate_create_order(const json& body) {
  error_list errors;
  if (!check_object(body, errors)) return std::move(errors).take();
  check_id(body, "merchant_order_id", "", errors);
  check_id(body, "customer_id", "", errors);
  check_currency(body, errors);
  const auto amount = check_amount(body, errors);
  const auto sum = check_items(body, errors);
  // Comparing totals only makes sense when both sides are valid on their own.
  if (amount && sum) {
    if (sum->exceeds_max) {
      errors.add("amount_minor",
                 "must equal the sum of quantity * unit_price_minor over items, which exceeds " +
                     std::to_string(max_amount_minor));
    } else if (sum->value != *amount) {
      errors.add("amount_minor", "must equal the sum of quantity * unit_price_minor over items (" +
                                     std::to_string(sum->value) + ")");
    }
  }
  return std::move(errors).take();
}

std::vector<field_error> validate_payment(const json& body) {
  error_list errors;
  if (!check_object(body, errors)) return std::move(errors).take();
  check_amount(body, errors);
  check_currency(body, errors);
  check_id(body, "payment_method", "", errors);
  return std::move(errors).take();
}

std::vector<field_error> validate_cancel(const json& body) {
  error_list errors;
  if (!check_object(body, errors)) return std::move(errors).take();
  // An explicit null is treated like an absent reason: clients that serialise an empty
  // optional as null mean "no reason", not a malformed one.
  auto it = body.find("reason");
  if (it != body.end() && !it->is_null()) {
    check_string(body, "reason", "", 0, max_reason_length, /*required=*/false, errors);
  }
  return std::move(errors).take();
}

json to_json(const std::vector<field_error>& errors) {
  json out = json::array();  // [] rather than null when there is nothing to report
  for (const auto& e : errors)
    out.push_back({{"field", e.field}, {"message", e.message}});
  return out;
}

json error_members(const std::vector<field_error>& errors) {
  const auto listed = std::min(errors.size(), max_listed_errors);
  json out{
      {"errors", to_json({errors.begin(), errors.begin() + static_cast<std::ptrdiff_t>(listed)})}};
  if (errors.size() > listed) out["errors_omitted"] = errors.size() - listed;
  return out;
}

}  // namespace idem::mock
