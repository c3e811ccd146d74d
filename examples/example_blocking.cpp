// Submits one order through the blocking client (no event loop in sight) and prints its outcome.
//
//   example_blocking http://127.0.0.1:PORT TOKEN
#include <iostream>

#include "idem/blocking_client.hpp"
#include "idem/orders.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: example_blocking BASE_URL TOKEN\n";
    return 2;
  }
  // Runs its own io_context on its own thread; submit() blocks the caller until the outcome.
  idem::client_options options;  // the defaults: 30 s deadline, full jitter
  options.base_url = argv[1];
  options.credentials = idem::bearer_token{argv[2]};
  idem::blocking_client client{options};
  const idem::intent order = idem::orders::create(
      {.merchant_order_id = "cart-" + idem::idempotency_key::mint().str().substr(0, 8),
       .customer_id = "c-1",
       .currency = "EUR",
       .amount_minor = 1500,
       .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}});
  const idem::outcome o = client.submit(order);
  std::cout << "order: " << o << " (key " << o.key() << ")\n";
  if (o.kind() == idem::outcome_kind::unresolved) {
    std::cout << "unresolved: keep the key and resume later; it may have happened\n";
  }
  return o.kind() == idem::outcome_kind::succeeded ? 0 : 1;
}
