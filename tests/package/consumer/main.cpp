// An app built against the installed idem package: it includes every public header, creates an
// order and pays it through a C++20 coroutine against the server at BASE_URL, and exits 0 only
// if both intents succeeded.
//
//   idem_consumer http://127.0.0.1:PORT TOKEN
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <iostream>
#include <nlohmann/json.hpp>

#include "idem/backoff.hpp"
#include "idem/blocking_client.hpp"
#include "idem/classify.hpp"
#include "idem/client.hpp"
#include "idem/curl_transport.hpp"
#include "idem/deadline.hpp"
#include "idem/idempotency_key.hpp"
#include "idem/intent.hpp"
#include "idem/intent_store.hpp"
#include "idem/observer.hpp"
#include "idem/orders.hpp"
#include "idem/outcome.hpp"
#include "idem/retry_after.hpp"
#include "idem/retry_budget.hpp"
#include "idem/scheduler.hpp"
#include "idem/testing/fake_scheduler.hpp"
#include "idem/testing/fake_transport.hpp"
#include "idem/transport.hpp"
#include "idem/transport_error.hpp"

namespace {

boost::asio::awaitable<bool> create_and_pay(idem::client& client) {
  const std::string cart = "consumer-" + idem::idempotency_key::mint().str().substr(0, 8);
  const idem::intent order =
      idem::orders::create({.merchant_order_id = cart,
                            .customer_id = "c-1",
                            .currency = "EUR",
                            .amount_minor = 1200,
                            .items = {{.sku = "pen", .quantity = 4, .unit_price_minor = 300}}});
  const idem::outcome created = co_await client.async_submit(order, boost::asio::use_awaitable);
  std::cout << "create: " << idem::to_string(created.kind()) << " (HTTP " << created.status()
            << ")\n";
  if (created.kind() != idem::outcome_kind::succeeded) co_return false;

  const auto order_json = nlohmann::json::parse(created.body(), nullptr, false);
  if (!order_json.is_object() || !order_json.contains("id")) co_return false;
  const std::string order_id = order_json["id"].get<std::string>();
  const idem::intent payment =
      idem::orders::pay(order_id, {.amount_minor = 1200, .currency = "EUR"});
  const idem::outcome paid = co_await client.async_submit(payment, boost::asio::use_awaitable);
  std::cout << "pay " << order_id << ": " << idem::to_string(paid.kind()) << " (HTTP "
            << paid.status() << ")\n";
  co_return paid.kind() == idem::outcome_kind::succeeded;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: idem_consumer BASE_URL TOKEN\n";
    return 2;
  }
  boost::asio::io_context io;
  idem::client_options options;
  options.base_url = argv[1];
  options.credentials = idem::bearer_token{argv[2]};
  idem::client client{io.get_executor(), options};
  bool ok = false;
  boost::asio::co_spawn(
      io, [&]() -> boost::asio::awaitable<void> { ok = co_await create_and_pay(client); },
      boost::asio::detached);
  io.run();
  return ok ? 0 : 1;
}
