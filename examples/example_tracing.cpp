// Submits one order with a tracing observer and prints each span as one JSON line as it ends:
// the attempts, waits and lookups of the intent, named as docs/SDK.md ("Tracing") says.
//
//   example_tracing http://127.0.0.1:PORT TOKEN
#include <boost/asio/io_context.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "examples/tracing/span_tracer.hpp"
#include "idem/client.hpp"
#include "idem/orders.hpp"

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: example_tracing BASE_URL TOKEN\n";
    return 2;
  }
  const auto epoch = std::chrono::steady_clock::now();
  auto micros = [epoch](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::microseconds>(t - epoch).count();
  };
  // An app would hand each span to its tracer here; this prints it.
  auto tracer = std::make_shared<idem_example::span_tracer>([&](const idem_example::span& s) {
    nlohmann::json line{{"name", s.name},
                        {"span_id", s.id},
                        {"parent_id", s.parent_id},
                        {"start_us", micros(s.start)},
                        {"end_us", micros(s.end)},
                        {"status", s.error ? "ERROR" : "OK"},
                        {"attributes", s.attributes}};
    for (const auto& e : s.events)
      line["events"].push_back(
          {{"name", e.name}, {"at_us", micros(e.at)}, {"attributes", e.attributes}});
    std::cout << line.dump() << '\n';
  });

  boost::asio::io_context io;
  idem::client_options options;
  options.base_url = argv[1];
  options.credentials = idem::bearer_token{argv[2]};
  options.observer = tracer;
  idem::client client{io.get_executor(), options};
  const idem::intent order = idem::orders::create(
      {.merchant_order_id = "cart-" + idem::idempotency_key::mint().str().substr(0, 8),
       .customer_id = "c-1",
       .currency = "EUR",
       .amount_minor = 1500,
       .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}});
  int exit_status = 1;
  client.async_submit(order, [&](idem::outcome o) {
    std::cerr << "order: " << o << '\n';
    exit_status = o.kind() == idem::outcome_kind::succeeded ? 0 : 1;
  });
  io.run();
  return exit_status;
}
