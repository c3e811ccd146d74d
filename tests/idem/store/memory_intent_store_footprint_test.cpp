// What the default store holds for each intent in flight, beyond the intent itself (which the
// caller owns and the store shares): thousands in flight on a phone each pay it. Heap bytes as
// glibc's malloc counts them (tests/support/glibc_heap.hpp); skipped under a sanitizer.

#include <gtest/gtest.h>

#include <iostream>
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

TEST(MemoryIntentStoreFootprint, ARememberedKeyCostsAtMost256Bytes) {
  // What a final intent costs once only its key is remembered (memory_store_options::
  // key_retention): the bound the store's documentation gives.
  if (!test::glibc_heap_in_use()) GTEST_SKIP() << "mallinfo2 does not see a sanitizer's heap";
  constexpr std::size_t n = 20'000;
  memory_intent_store store({.retention = std::chrono::hours(1),
                             .max_final = 0,
                             .key_retention = std::chrono::hours(48),
                             .max_remembered = n});
  const std::string principal(64, 'p');
  const std::size_t before = *test::glibc_heap_in_use();
  for (std::size_t k = 0; k < n; ++k) {
    // Made and gone within the loop: only the store's memory of it stays.
    const intent i =
        orders::create({.merchant_order_id = "m-" + std::to_string(k),
                        .customer_id = "c",
                        .currency = "EUR",
                        .amount_minor = 100,
                        .items = {{.sku = "s", .quantity = 1, .unit_price_minor = 100}}});
    store.write(events::created{.what = i, .principal = principal, .at = footprint_t0});
    store.write(events::attempt_started{.key = i.key(), .number = 1, .at = footprint_t0});
    store.write(events::outcome_reported{
        .key = i.key(),
        .at = footprint_t0,
        .result = outcome(outcome_fields{.kind = outcome_kind::succeeded, .status = 201})});
  }
  const std::size_t after = *test::glibc_heap_in_use();
  ASSERT_EQ(store.size(), 0u);
  ASSERT_EQ(store.remembered(), n);
  const double per_key = static_cast<double>(after - before) / n;
  EXPECT_LE(per_key, 256.0);
  RecordProperty("store_bytes_per_remembered_key", std::to_string(per_key));
  std::cout << "[ measure ] a remembered key costs the store " << per_key << " bytes\n";
}

}  // namespace
}  // namespace idem
