#pragma once
// Which lookup by business ID an intent of idem-cli gets: the preset of its kind, none, or the
// one the command line describes (--lookup none, --lookup-url and its companions).

#include <string>

#include "idem/business_lookup.hpp"
#include "idem/intent.hpp"
#include "idem_cli/command_line/command_line.hpp"

namespace idem::cli {

/// The preset lookup that settles a write to `path` when its answers were lost: by
/// merchant_order_id for `/v1/orders`, by order id for `/v1/orders/{id}/payments` and
/// `/v1/orders/{id}/cancel`; none (just the business ID) for any other path, so such an intent
/// may end unresolved unless the command line gives a lookup.
[[nodiscard]] business_lookup lookup_for(const std::string& path, const std::string& business_id);

/// `preset` as the command line wants it: unchanged without lookup flags, disabled with
/// `--lookup none`, replaced by the custom lookup otherwise. The business ID is always the
/// preset's.
[[nodiscard]] business_lookup choose_lookup(const lookup_args& choice, business_lookup preset);

/// `i` with its lookup chosen by `choice` (the same intent: key, operation and body bytes are
/// kept); `i` itself when there are no lookup flags.
[[nodiscard]] intent with_lookup(const lookup_args& choice, const intent& i);

}  // namespace idem::cli
