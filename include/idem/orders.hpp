#pragma once
/// @file
/// Typed intents for the bundled orders API (contract section 4), each with the business lookup
/// that settles it when every answer was lost.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "idem/intent.hpp"
#include "idem/outcome.hpp"
#include "idem/planned_intent.hpp"

namespace idem::orders {

struct order_item {
  std::string sku;
  std::int64_t quantity = 1;
  std::int64_t unit_price_minor = 0;
};

struct order_request {
  std::string merchant_order_id;  ///< the business ID: unique per merchant
  std::string customer_id;
  std::string currency;  ///< three capital letters, e.g. "EUR"
  std::int64_t amount_minor = 0;
  std::vector<order_item> items;
};

struct payment_request {
  std::int64_t amount_minor = 0;
  std::string currency;
  std::string payment_method = "card";
};

/// The lookups of the orders API, as presets of the declarative lookup (business_lookup.hpp).
/// `GET /v1/orders?merchant_order_id=X`, records at `/data`: the order whose merchant_order_id
/// is X is ours when its amount, currency and items agree with ours (fields missing on either
/// side are not compared); another order under X proves ours can never be created (rejected).
[[nodiscard]] business_lookup order_created_lookup(std::string merchant_order_id);
/// `GET /v1/orders/{id}`, records at `/payments`: a payment of our amount and currency.
[[nodiscard]] business_lookup payment_captured_lookup(std::string order_id);
/// `GET /v1/orders/{id}`: the order, ours when its status is CANCELLED.
[[nodiscard]] business_lookup order_cancelled_lookup(std::string order_id);

/// The JSON body of `POST /v1/orders` for `req` (what `create` sends), for an app that posts
/// the same order to a route of its own.
[[nodiscard]] nlohmann::json order_payload(const order_request& req);
/// The same body as bytes: always equal to `order_payload(req).dump()`, which is what an intent
/// sends, but written directly (no JSON tree) when every string is printable ASCII without
/// quotes or backslashes, as IDs, SKUs and currency codes are.
[[nodiscard]] std::string order_body(const order_request& req);
/// `POST /v1/orders`; lookup: order_created_lookup.
[[nodiscard]] intent create(const order_request& req, key_format format = key_format::uuid_v4);
/// The same body POSTed to `path`, an app's own route for it, settled by `lookup`.
[[nodiscard]] intent create(const order_request& req, std::string path, business_lookup lookup,
                            key_format format = key_format::uuid_v4);
/// `POST /v1/orders/{id}/payments`; lookup: payment_captured_lookup.
[[nodiscard]] intent pay(const std::string& order_id, const payment_request& req,
                         key_format format = key_format::uuid_v4);
/// The payment of `order`, planned before the order exists: key minted now, path
/// `/v1/orders/{id}/payments` filled in from the created order (planned_intent::bind).
[[nodiscard]] planned_intent plan_payment(const intent& order, const payment_request& req,
                                          key_format format = key_format::uuid_v4);
/// The id of the order a succeeded `create` made: `id` of the 201's body, or of the order the
/// lookup found (the same field either way). nullopt unless `o` succeeded with such a body.
[[nodiscard]] std::optional<std::string> created_order_id(const outcome& o);
/// `POST /v1/orders/{id}/cancel`; lookup: order_cancelled_lookup.
[[nodiscard]] intent cancel(const std::string& order_id, const std::string& reason = {},
                            key_format format = key_format::uuid_v4);

}  // namespace idem::orders
