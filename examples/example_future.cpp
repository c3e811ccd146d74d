// Submits one order from a plain thread with asio::use_future, while a second thread runs the
// client's io_context, and prints its outcome.
//
//   example_future http://127.0.0.1:PORT TOKEN
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_future.hpp>
#include <iostream>
#include <thread>

#include "idem/client.hpp"
#include "idem/orders.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: example_future BASE_URL TOKEN\n";
    return 2;
  }
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::thread runner([&io] { io.run(); });

  int exit_status = 1;
  {
    idem::client_options options;  // the defaults: 30 s deadline, full jitter
    options.base_url = argv[1];
    options.credentials = idem::bearer_token{argv[2]};
    idem::client client{io.get_executor(), options};
    const idem::intent order = idem::orders::create(
        {.merchant_order_id = "cart-" + idem::idempotency_key::mint().str().substr(0, 8),
         .customer_id = "c-1",
         .currency = "EUR",
         .amount_minor = 1500,
         .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}});

    // Never call get() on the io_context's own thread: it would wait on itself.
    std::future<idem::outcome> pending = client.async_submit(order, boost::asio::use_future);
    const idem::outcome o = pending.get();
    std::cout << "order: " << o << '\n';
    exit_status = o.kind() == idem::outcome_kind::succeeded ? 0 : 1;
  }
  work.reset();
  io.stop();
  runner.join();
  return exit_status;
}
