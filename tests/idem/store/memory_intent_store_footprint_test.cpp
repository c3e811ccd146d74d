// What the default store holds for each intent in flight, beyond the intent itself (which the
// caller owns and the store shares): thousands in flight on a phone each pay it. Heap bytes as
// glibc's malloc counts them (tests/support/glibc_heap.hpp); skipped under a sanitizer.

#include <gtest/gtest.h>

#include <vector>

#include "idem/memory_intent_store.hpp"
#include "idem/orders.hpp"
#include "tests/support/glibc_heap.hpp"

namespace idem {
namespace {

const wall_time footprint_t0 = wall_time{} + std::chrono::hours(500'000);

TEST(MemoryIntentStoreFootprint, AnIntentInFlightCostsTheStoreAtMost256Bytes) {
  if (!test::glibc_heap_in_use()) GTEST_SKIP() << "mallinfo2 does not see a sanitizer's heap";
  constexpr std::size_t n = 20'000;
  std::vector<intent> intents;
  intents.reserve(n);
  for (std::size_t k = 0; k < n; ++k) {
    intents.push_back(
        orders::create({.merchant_order_id = "m-" + std::to_string(k),
                        .customer_id = "c",
                        .currency = "EUR",
                        .amount_minor = 100,
                        .items = {{.sku = "s", .quantity = 1, .unit_price_minor = 100}}}));
  }
  memory_intent_store store;
  const std::string principal(64, 'p');  // a SHA-256 in hex, as the client gives it
  const std::size_t before = *test::glibc_heap_in_use();
  for (const intent& i : intents) {
    // An intent in flight: created, its first attempt started, no answer yet.
    store.write(events::created{.what = i, .principal = principal, .at = footprint_t0});
    store.write(events::attempt_started{.key = i.key(), .number = 1, .at = footprint_t0});
  }
  const std::size_t after = *test::glibc_heap_in_use();
  ASSERT_EQ(store.size(), n);
  ASSERT_EQ(store.open_intents().size(), n);
  const double per_intent = static_cast<double>(after - before) / n;
  EXPECT_LE(per_intent, 256.0);
  RecordProperty("store_bytes_per_intent_in_flight", std::to_string(per_intent));
}

}  // namespace
}  // namespace idem
