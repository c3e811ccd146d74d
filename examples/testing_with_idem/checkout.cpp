#include "checkout.hpp"

#include <boost/asio/use_awaitable.hpp>

#include "idem/orders.hpp"

namespace shop {

idem::intent order_for(const cart& c) {
  return idem::orders::create(
      {.merchant_order_id = c.id,
       .customer_id = c.customer,
       .currency = "EUR",
       .amount_minor = c.amount_minor,
       .items = {{.sku = "gift-card", .quantity = 1, .unit_price_minor = c.amount_minor}}});
}

boost::asio::awaitable<checkout_result> buy(idem::client& client, const cart& c,
                                            idem::intent order) {
  idem::outcome created_order = co_await client.async_submit(order, boost::asio::use_awaitable);
  checkout_result result{.cart_id = c.id, .order = std::move(created_order), .payment = {}};
  // Succeeded, from the 201 or the order the lookup found: its id, without parsing the body.
  const auto order_id = idem::orders::created_order_id(result.order);
  if (!order_id) co_return result;
  const idem::intent payment =
      idem::orders::pay(*order_id, {.amount_minor = c.amount_minor, .currency = "EUR"});
  result.payment = co_await client.async_submit(payment, boost::asio::use_awaitable);
  co_return result;
}

}  // namespace shop
