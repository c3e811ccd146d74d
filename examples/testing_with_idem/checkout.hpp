#pragma once
// The "app" under test: a checkout that places the order for a cart and pays it, through idem.
// Nothing in it knows about tests; checkout_test.cpp runs it against idem's mock server.

#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <optional>
#include <string>

#include "idem/client.hpp"
#include "idem/intent.hpp"
#include "idem/outcome.hpp"

namespace shop {

struct cart {
  std::string id;  ///< the business id: one order per cart, ever
  std::string customer;
  std::int64_t amount_minor = 0;  ///< in EUR cents
};

/// What became of one checkout: the order's outcome and, when it was created, the payment's.
struct checkout_result {
  std::string cart_id;
  idem::outcome order;
  std::optional<idem::outcome> payment;
};

/// The create-order intent for `c` (its key is minted here, once). An app keeps it to resume.
[[nodiscard]] idem::intent order_for(const cart& c);

/// Places `order` (made by order_for(c)) and, once it exists, pays it. Never throws; every
/// outcome is reported.
[[nodiscard]] boost::asio::awaitable<checkout_result> buy(idem::client& client, const cart& c,
                                                          idem::intent order);

}  // namespace shop
