// Creates one order and pays it in a C++20 coroutine (asio::use_awaitable + co_spawn), printing
// both outcomes.
//
//   example_coroutine http://127.0.0.1:PORT TOKEN
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <iostream>

#include "idem/client.hpp"
#include "idem/orders.hpp"

namespace asio = boost::asio;

asio::awaitable<int> buy(idem::client& client) {
  const idem::intent order = idem::orders::create(
      {.merchant_order_id = "cart-" + idem::idempotency_key::mint().str().substr(0, 8),
       .customer_id = "c-1",
       .currency = "EUR",
       .amount_minor = 1500,
       .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}});
  const idem::outcome created = co_await client.async_submit(order, asio::use_awaitable);
  std::cout << "order: " << created << '\n';  // kind, status, attempts and, if any, the reason
  // The order's id comes from its 201, or from the order found by the lookup.
  const std::optional<std::string> order_id = idem::orders::created_order_id(created);
  if (!order_id) co_return 1;
  const idem::intent payment =
      idem::orders::pay(*order_id, {.amount_minor = 1500, .currency = "EUR"});
  const idem::outcome paid = co_await client.async_submit(payment, asio::use_awaitable);
  std::cout << "payment: " << paid << '\n' << paid.body() << '\n';
  // reason() says why in a value an app can test, e.g. idem::errc::attempt_timed_out.
  if (paid.reason() == idem::errc::duplicate_business_id) std::cout << "paid already\n";
  co_return paid.kind() == idem::outcome_kind::succeeded ? 0 : 1;
}

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: example_coroutine BASE_URL TOKEN\n";
    return 2;
  }
  asio::io_context io;
  idem::client_options options;  // the defaults: 30 s deadline, full jitter
  options.base_url = argv[1];
  options.credentials = idem::bearer_token{argv[2]};
  idem::client client{io.get_executor(), options};
  int exit_status = 1;
  asio::co_spawn(io, buy(client),
                 [&](std::exception_ptr e, int status) { exit_status = e ? 1 : status; });
  io.run();  // returns once the outcome is in: idle pooled connections leave it no work
  return exit_status;
}
