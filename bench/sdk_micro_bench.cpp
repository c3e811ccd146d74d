// Micro benchmarks of the SDK's own cost (Google Benchmark), apart from any network: minting a
// key, freezing an intent, drawing a backoff, parsing Retry-After, and driving whole intents
// through the client's state machine on a scripted transport in virtual time.
//
//   build/bench/idem_sdk_bench [--benchmark_filter=Submit]
#include <benchmark/benchmark.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <random>

#include "idem/client.hpp"
#include "idem/idempotency_key.hpp"
#include "idem/orders.hpp"
#include "idem/testing/fake_scheduler.hpp"
#include "idem/testing/fake_transport.hpp"
#include "policy/backoff.hpp"
#include "policy/retry_after.hpp"

namespace {

using namespace std::chrono_literals;

idem::orders::order_request sample_order(std::int64_t n) {
  return {.merchant_order_id = "bench-" + std::to_string(n),
          .customer_id = "c-1",
          .currency = "EUR",
          .amount_minor = 1500,
          .items = {{.sku = "book", .quantity = 3, .unit_price_minor = 500}}};
}

void BM_MintKeyUuidV4(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(idem::idempotency_key::mint());
}
BENCHMARK(BM_MintKeyUuidV4);

void BM_MintKeyUuidV7(benchmark::State& state) {
  for (auto _ : state)
    benchmark::DoNotOptimize(idem::idempotency_key::mint(idem::key_format::uuid_v7));
}
BENCHMARK(BM_MintKeyUuidV7);

void BM_CreateOrderIntent(benchmark::State& state) {
  std::int64_t n = 0;
  for (auto _ : state)
    benchmark::DoNotOptimize(idem::orders::create(sample_order(n++)));
}
BENCHMARK(BM_CreateOrderIntent);

void BM_FullJitterBackoff(benchmark::State& state) {
  std::mt19937_64 rng{42};
  for (auto _ : state) {
    idem::backoff b;
    for (int i = 0; i < 8; ++i)
      benchmark::DoNotOptimize(b.next_delay(rng));
  }
  state.SetItemsProcessed(state.iterations() * 8);
}
BENCHMARK(BM_FullJitterBackoff);

void BM_RetryAfterHttpDate(benchmark::State& state) {
  const auto now = std::chrono::system_clock::now();
  for (auto _ : state) {
    benchmark::DoNotOptimize(idem::parse_retry_after("Wed, 21 Oct 2037 07:28:00 GMT",
                                                     "Wed, 21 Oct 2037 07:27:58 GMT", now));
  }
}
BENCHMARK(BM_RetryAfterHttpDate);

// One intent per iteration through idem::client on a scripted transport in virtual time: the
// first `failures` attempts are lost (503), the next one answers 201. Measures the SDK's work per
// intent (state machine, strand hops, classification, backoff), not any network.
void BM_SubmitIntent(benchmark::State& state) {
  const auto failures = state.range(0);
  boost::asio::io_context io;
  auto clock = std::make_shared<idem::kit::fake_scheduler>(io.get_executor());
  auto net = std::make_shared<idem::kit::fake_transport>(io.get_executor(), clock);
  std::int64_t attempt = 0;
  net->respond([&](const idem::http_request&) {
    return attempt++ % (failures + 1) == failures
               ? idem::kit::reply(201, R"({"id":"ord_1","status":"CREATED"})")
               : idem::kit::reply(503);
  });
  idem::client_options options;
  options.base_url = "http://shop.test";
  options.credentials = idem::bearer_token{"bench"};
  idem::client client{io.get_executor(), options, net, clock};
  std::int64_t n = 0;
  std::int64_t succeeded = 0;
  for (auto _ : state) {
    client.async_submit(idem::orders::create(sample_order(n++)), [&](idem::outcome o) {
      succeeded += o.kind() == idem::outcome_kind::succeeded ? 1 : 0;
    });
    io.restart();
    io.run();
  }
  if (succeeded != n) state.SkipWithError("an intent did not succeed");
  state.SetItemsProcessed(n);
}
BENCHMARK(BM_SubmitIntent)->Arg(0)->Arg(2)->ArgName("lost_attempts");

}  // namespace

BENCHMARK_MAIN();
