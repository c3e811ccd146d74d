// How much memory the default intent store holds after many intents: N orders submitted and
// answered 201 at once by a transport that keeps nothing, then the process's resident set size
// (VmRSS) before and after, and what the store still holds.
//
//   idem_store_memory [N=200000]
#include <boost/asio/append.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>

#include "idem/client.hpp"
#include "idem/orders.hpp"
#include "idem/transport.hpp"

namespace {

// Answers every request 201 at once (posted), remembering nothing.
class instant_transport final : public idem::transport {
 public:
  explicit instant_transport(boost::asio::any_io_executor ex) : ex_(std::move(ex)) {}

 protected:
  void send_impl(idem::http_request,
                 boost::asio::any_completion_handler<signature> handler) override {
    idem::transport_result r;
    r.response.status = 201;
    r.response.body = R"({"id":"ord_1","status":"CREATED"})";
    boost::asio::post(ex_, boost::asio::append(std::move(handler), std::move(r)));
  }

 private:
  boost::asio::any_io_executor ex_;
};

long rss_kib() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    if (line.rfind("VmRSS:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 10);
  }
  return -1;
}

}  // namespace

int main(int argc, char** argv) {
  const long n = argc > 1 ? std::strtol(argv[1], nullptr, 10) : 200'000;
  boost::asio::io_context io;
  auto net = std::make_shared<instant_transport>(io.get_executor());
  auto store = std::make_shared<idem::memory_intent_store>();
  idem::client_options options;
  options.base_url = "http://bench.test";
  options.credentials = idem::bearer_token{"bench"};
  options.store = store;
  idem::client c{io.get_executor(), options, net};

  const long before = rss_kib();
  long succeeded = 0;
  constexpr long batch = 1'000;
  for (long done = 0; done < n; done += batch) {
    for (long k = done; k < std::min(n, done + batch); ++k) {
      const std::int64_t price = 100;
      c.async_submit(
          idem::orders::create({.merchant_order_id = "m-" + std::to_string(k),
                                .customer_id = "c",
                                .currency = "EUR",
                                .amount_minor = price,
                                .items = {{"sku", 1, price}}}),
          [&](idem::outcome o) { succeeded += o.kind() == idem::outcome_kind::succeeded ? 1 : 0; });
    }
    io.restart();
    io.run();
  }
  const long after = rss_kib();
  std::cout << "{\"intents\":" << n << ",\"succeeded\":" << succeeded
            << ",\"records_held\":" << store->size() << ",\"rss_before_kib\":" << before
            << ",\"rss_after_kib\":" << after << ",\"rss_added_kib\":" << (after - before) << "}\n";
  return succeeded == n ? 0 : 1;
}
