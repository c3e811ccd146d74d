// Submits one order with a completion callback and prints its outcome.
//
//   example_callback http://127.0.0.1:PORT TOKEN
#include <boost/asio/io_context.hpp>
#include <iostream>

#include "idem/client.hpp"
#include "idem/orders.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: example_callback BASE_URL TOKEN\n";
    return 2;
  }
  boost::asio::io_context io;
  idem::client_options options;  // the defaults: 30 s deadline, full jitter
  options.base_url = argv[1];
  options.credentials = idem::bearer_token{argv[2]};
  idem::client client{io.get_executor(), options};

  // The key is minted here, once; every retry of this intent sends it unchanged.
  const idem::intent order = idem::orders::create(
      {.merchant_order_id = "cart-" + idem::idempotency_key::mint().str().substr(0, 8),
       .customer_id = "c-1",
       .currency = "EUR",
       .amount_minor = 1500,
       .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}});

  int exit_status = 1;
  client.async_submit(order, [&](idem::outcome o) {
    // Runs on the client's executor, never inline.
    // e.g. "succeeded, HTTP 201 Created, 1 attempt"; otherwise with its reason() in words.
    std::cout << "order: " << o << " (key " << o.key() << ")\n";
    if (o.kind() == idem::outcome_kind::succeeded) std::cout << o.body() << '\n';
    exit_status = o.kind() == idem::outcome_kind::succeeded ? 0 : 1;
  });
  io.run();  // returns once the outcome is in: idle pooled connections leave it no work
  return exit_status;
}
