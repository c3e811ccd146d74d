#pragma once
// Which lookup by business ID an intent of idem-cli gets: the orders API's, wherever --path puts
// it; none; or the one the command line describes (--lookup none, --lookup-url and its
// companions). And what to say before sending when that lookup cannot settle anything.

#include <nlohmann/json.hpp>
#include <string>

#include "idem/business_lookup.hpp"
#include "idem/intent.hpp"
#include "idem_cli/command_line/command_line.hpp"

namespace idem::cli {

/// The orders API's lookup of a created order (orders::order_created_lookup) for an orders
/// collection at `path` instead of /v1/orders: `GET path?merchant_order_id={business_id}`.
[[nodiscard]] business_lookup order_created_at(const std::string& path,
                                               std::string merchant_order_id);

/// The lookup that settles a write to `path` when its answers were lost, by the orders API's
/// convention (CONTRACT sections 4 and 8) wherever its collection C is: for a create at C
/// (C is /v1/orders, or `payload` holds `business_id` as its merchant_order_id)
/// order_created_at(C); for `C/{id}/payments` and `C/{id}/cancel`, the payment's and the
/// cancel's presets asking `GET C/{business_id}`. None (just the business ID) for any other
/// write, so such an intent may end unresolved unless the command line gives a lookup.
[[nodiscard]] business_lookup lookup_for(const std::string& path, const std::string& business_id,
                                         const nlohmann::json& payload = {});

/// `preset` as the command line wants it: unchanged without lookup flags, disabled with
/// `--lookup none`, replaced by the custom lookup otherwise. The business ID is always the
/// preset's. A custom lookup with neither --lookup-identify nor --lookup-match would prove no
/// record ours: it identifies its records by the field of `payload` that holds the business ID
/// (e.g. /merchant_order_id), when there is one.
[[nodiscard]] business_lookup choose_lookup(const lookup_args& choice, business_lookup preset,
                                            const nlohmann::json& payload = {});

/// What to tell once, before sending `POST path` with the lookup `chosen` by `choice`, when
/// that lookup can never settle the intent: no lookup derives from the path (and none was
/// given), or a --lookup-url alone found no field holding the business ID. "" otherwise.
[[nodiscard]] std::string lookup_notice(const lookup_args& choice, const std::string& path,
                                        const business_lookup& chosen);

/// `i` with its lookup chosen by `choice` (the same intent: key, operation and body bytes are
/// kept); `i` itself when there are no lookup flags.
[[nodiscard]] intent with_lookup(const lookup_args& choice, const intent& i);

}  // namespace idem::cli
