// An app built against the installed idem package, the way an app would: once through CMake
// (find_package(idem)) and once with a plain compiler line from pkg-config (`pkg-config --cflags
// --libs idem`). It includes every public header, checks that the version header agrees with the
// package's version, then creates an order, pays it, and creates a second order through the
// default completion token (no token: a deferred operation, co_awaited) against the server at
// BASE_URL. It exits 0 only if all three intents succeeded.
//
//   idem_consumer http://127.0.0.1:PORT TOKEN
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string_view>

#include "idem/backoff.hpp"
#include "idem/blocking_client.hpp"
#include "idem/business_lookup.hpp"
#include "idem/classify.hpp"
#include "idem/client.hpp"
#include "idem/curl_transport.hpp"
#include "idem/deadline.hpp"
#include "idem/http_headers.hpp"
#include "idem/idempotency_key.hpp"
#include "idem/intent.hpp"
#include "idem/intent_store.hpp"
#include "idem/journal_error.hpp"
#include "idem/memory_intent_store.hpp"
#include "idem/observer.hpp"
#include "idem/orders.hpp"
#include "idem/outcome.hpp"
#include "idem/planned_intent.hpp"
#include "idem/retry_budget.hpp"
#include "idem/scheduler.hpp"
#include "idem/server_profile.hpp"
#include "idem/sqlite_journal.hpp"
#include "idem/testing/fake_scheduler.hpp"
#include "idem/testing/fake_transport.hpp"
#include "idem/transport.hpp"
#include "idem/transport_error.hpp"
#include "idem/version.hpp"

// The build passes the version its package manager reported (CMake: idem_VERSION; pkg-config:
// --modversion), so a version header out of step with the package does not compile.
#ifndef IDEM_PACKAGE_VERSION
#error "build with -DIDEM_PACKAGE_VERSION=\"<the package's version>\""
#endif
static_assert(std::string_view(IDEM_VERSION_STRING) == IDEM_PACKAGE_VERSION,
              "idem/version.hpp disagrees with the package's version");
static_assert(IDEM_VERSION ==
              IDEM_VERSION_MAJOR * 10000 + IDEM_VERSION_MINOR * 100 + IDEM_VERSION_PATCH);

namespace {

idem::orders::order_request order_request(const char* tag) {
  const std::string cart =
      std::string("consumer-") + tag + "-" + idem::idempotency_key::mint().str().substr(0, 8);
  return {.merchant_order_id = cart,
          .customer_id = "c-1",
          .currency = "EUR",
          .amount_minor = 1200,
          .items = {{.sku = "pen", .quantity = 4, .unit_price_minor = 300}}};
}

boost::asio::awaitable<bool> create_and_pay(idem::client& client) {
  const idem::intent order = idem::orders::create(order_request("a"));
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
  if (paid.kind() != idem::outcome_kind::succeeded) co_return false;

  // No completion token: the default (boost::asio::deferred on Boost 1.81's any_io_executor)
  // makes an operation that runs once it is awaited.
  auto deferred_create = client.async_submit(idem::orders::create(order_request("b")));
  const idem::outcome second = co_await std::move(deferred_create);
  std::cout << "create (default token): " << idem::to_string(second.kind()) << " (HTTP "
            << second.status() << ")\n";
  co_return second.kind() == idem::outcome_kind::succeeded;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: idem_consumer BASE_URL TOKEN\n";
    return 2;
  }
  std::cout << "idem " << IDEM_VERSION_STRING << "\n";
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
