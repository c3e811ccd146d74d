#pragma once
// Validation of the Orders API request bodies (contract section 4). Pure functions: no storage.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace idem::mock {

/// One validation error, reported in the `errors` array of a 400 validation-failed problem.
struct field_error {
  std::string field;    ///< JSON-pointer-like path, e.g. "items[0].quantity" or "amount_minor"
  std::string message;  ///< human readable
  friend bool operator==(const field_error&, const field_error&) = default;
};

/// Largest integer amount accepted: 2^53 - 1.
inline constexpr std::int64_t max_amount_minor = 9007199254740991;

/// Validates `POST /v1/orders` bodies: the body is an object; `merchant_order_id` and
/// `customer_id` are strings of 1-255 characters; `currency` is three capital ASCII letters;
/// `amount_minor` is an integer (not a float, not a string) in 1..2^53-1; `items` is a non-empty
/// array of objects each with `sku` (string 1-255), `quantity` (integer > 0) and
/// `unit_price_minor` (integer >= 0); and sum(quantity * unit_price_minor) == amount_minor
/// (computed without overflow). Returns every error found (empty = valid). Unknown extra fields
/// are allowed.
[[nodiscard]] std::vector<field_error> validate_create_order(const nlohmann::json& body);

/// Validates `POST /v1/orders/{id}/payments`: object with `amount_minor` (integer 1..2^53-1),
/// `currency` (three capital letters) and `payment_method` (string 1-255).
[[nodiscard]] std::vector<field_error> validate_payment(const nlohmann::json& body);

/// Validates `POST /v1/orders/{id}/cancel`: an object; `reason`, when present, a string of at
/// most 1000 characters.
[[nodiscard]] std::vector<field_error> validate_cancel(const nlohmann::json& body);

/// `field_error`s as the JSON array `[{"field", "message"}, ...]`.
[[nodiscard]] nlohmann::json to_json(const std::vector<field_error>& errors);

}  // namespace idem::mock
