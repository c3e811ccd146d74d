// examples/example_callback.cpp with its intents in a SQLite journal (scripts/footprint.sh
// measures what the durable store adds to an app's size): the same order, the same output.
//
//   idem_footprint_journal_app http://127.0.0.1:PORT TOKEN JOURNAL_PATH
#include <boost/asio/io_context.hpp>
#include <iostream>

#include "idem/client.hpp"
#include "idem/orders.hpp"
#include "idem/sqlite_journal.hpp"

int main(int argc, char** argv) {
  if (argc != 4) {
    std::cerr << "usage: idem_footprint_journal_app BASE_URL TOKEN JOURNAL_PATH\n";
    return 2;
  }
  std::error_code ec;
  std::string why;
  auto journal = idem::sqlite_journal::open({.path = argv[3]}, ec, &why);
  if (!journal) {
    std::cerr << "cannot open the journal: " << why << '\n';
    return 1;
  }
  boost::asio::io_context io;
  idem::client_options options;
  options.base_url = argv[1];
  options.credentials = idem::bearer_token{argv[2]};
  options.store = journal;
  idem::client client{io.get_executor(), options};

  const idem::intent order = idem::orders::create(
      {.merchant_order_id = "cart-" + idem::idempotency_key::mint().str().substr(0, 8),
       .customer_id = "c-1",
       .currency = "EUR",
       .amount_minor = 1500,
       .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}});

  int exit_status = 1;
  client.async_submit(order, [&](idem::outcome o) {
    std::cout << "order: " << idem::to_string(o.kind()) << " (HTTP " << o.status() << ", "
              << o.attempts() << " attempt(s), key " << o.key() << ")\n";
    if (o.kind() == idem::outcome_kind::succeeded) std::cout << o.body() << '\n';
    exit_status = o.kind() == idem::outcome_kind::succeeded ? 0 : 1;
  });
  io.run();
  return exit_status;
}
