// An intent's parts made on first use (its parsed payload, its whole lookup): made once, the
// same object for every thread that asks at the same time, and each thread sees it whole.
// Under ThreadSanitizer (CI's tsan configuration) a missing barrier is a reported race.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "idem/orders.hpp"

namespace idem {
namespace {

orders::order_request order() {
  return {.merchant_order_id = "lazy-1",
          .customer_id = "c",
          .currency = "EUR",
          .amount_minor = 700,
          .items = {{.sku = "s", .quantity = 1, .unit_price_minor = 700}}};
}

TEST(IntentLazyParts, EveryThreadGetsTheOneParsedPayloadAndTheOneWholeLookup) {
  for (int round = 0; round < 20; ++round) {
    const intent i = orders::create(order());
    constexpr int threads = 8;
    std::vector<const nlohmann::json*> payloads(threads);
    std::vector<const business_lookup*> lookups(threads);
    std::atomic<int> ready{0};
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t) {
      pool.emplace_back([&, t] {
        ready.fetch_add(1);
        while (ready.load() < threads)
          std::this_thread::yield();  // all start together (2 cores, or qemu: let them run)
        payloads[t] = &i.payload();
        lookups[t] = &i.lookup();
        // Read through: a part published before it was whole would show here.
        EXPECT_EQ((*payloads[t])["merchant_order_id"], "lazy-1");
        EXPECT_EQ(lookups[t]->business_id, "lazy-1");
      });
    }
    for (auto& t : pool)
      t.join();
    for (int t = 1; t < threads; ++t) {
      EXPECT_EQ(payloads[t], payloads[0]);
      EXPECT_EQ(lookups[t], lookups[0]);
    }
    EXPECT_EQ(i.lookup(), orders::order_created_lookup("lazy-1"));
  }
}

// What a store writes down of a lookup without making it whole (issue 47): orders share one
// shape, their own business IDs beside it; the shape and the ID make the whole lookup, which is
// made only when asked for and is a different object from the shape.
TEST(IntentLazyParts, OrdersShareOneLookupShapeAndKeepTheirOwnBusinessId) {
  auto second = order();
  second.merchant_order_id = "lazy-2";
  const intent a = orders::create(order());
  const intent b = orders::create(second);
  EXPECT_EQ(&a.lookup_shape(), &b.lookup_shape());
  EXPECT_EQ(a.business_id(), "lazy-1");
  EXPECT_EQ(b.business_id(), "lazy-2");
  auto whole = a.lookup_shape();
  whole.business_id = a.business_id();
  EXPECT_EQ(whole, orders::order_created_lookup("lazy-1"));
  EXPECT_EQ(a.lookup(), whole);
  EXPECT_NE(&a.lookup(), &a.lookup_shape());
  // An intent with a lookup of its own: the shape is that lookup, whole.
  const intent own =
      intent::create({"POST", "/v1/things"}, {{"n", 1}},
                     business_lookup{.url = "/v1/things/{business_id}", .business_id = "t-1"});
  EXPECT_EQ(&own.lookup_shape(), &own.lookup());
  EXPECT_EQ(own.business_id(), "t-1");
}

}  // namespace
}  // namespace idem
