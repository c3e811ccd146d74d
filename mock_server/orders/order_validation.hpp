#pragma once
// Validation of the Orders API request bodies (contract section 4). Pure functions: no storage.

#include <cstddef>
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

/// Most items an order may have. Checking a body costs the server's one thread time in
/// proportion to its items (a 64 KiB body holds 21,816 `{}`); beyond this count the items are
/// not looked at, and the only item error is the count itself.
inline constexpr std::size_t max_items_per_order = 1000;

/// Most errors a validation-failed problem lists; the rest are counted in `errors_omitted`, so
/// that an answer stays small whatever the request (the first errors are the ones to fix first).
inline constexpr std::size_t max_listed_errors = 20;

/// Validates `POST /v1/orders` bodies: the body is an object; `merchant_order_id` and
/// `customer_id` are strings of 1-255 characters; `currency` is three capital ASCII letters;
/// `amount_minor` is an integer (not a float, not a string) in 1..2^53-1; `items` is a non-empty
/// array of at most max_items_per_order objects each with `sku` (string 1-255), `quantity` (integer
/// > 0) and `unit_price_minor` (integer >= 0); and sum(quantity * unit_price_minor) == amount_minor
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

/// The members a validation-failed problem carries for `errors`: `errors`, the first
/// max_listed_errors of them as to_json() writes them, and `errors_omitted`, how many more were
/// found, only when there were more.
[[nodiscard]] nlohmann::json error_members(const std::vector<field_error>& errors);

}  // namespace idem::mock
