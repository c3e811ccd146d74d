// The transport's own due times (src/transport/transfer_deadlines.hpp): each transfer runs out of
// time counted from when the transport accepted it, whenever curl got round to starting it.

#include "transport/transfer_deadlines.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "tests/support/glibc_heap.hpp"

namespace idem::detail {
namespace {

using namespace std::chrono_literals;
using clock = transfer_deadlines::clock;

const clock::time_point transfer_t0 = clock::time_point{} + 1h;

TEST(TransferDeadlines, TakesWhatIsDueEarliestFirstAndKeepsTheRest) {
  transfer_due e1, e2, e3;
  transfer_deadlines d;
  d.add(e3, 3, transfer_t0 + 300ms);
  d.add(e1, 1, transfer_t0 + 100ms);
  d.add(e2, 2, transfer_t0 + 200ms);
  EXPECT_EQ(d.earliest(), transfer_t0 + 100ms);
  EXPECT_TRUE(d.take_due(transfer_t0 + 99ms).empty());
  EXPECT_EQ(d.take_due(transfer_t0 + 200ms), (std::vector<std::uint64_t>{1, 2}));
  EXPECT_FALSE(e1.tracked());
  EXPECT_FALSE(e2.tracked());
  EXPECT_TRUE(e3.tracked());
  EXPECT_EQ(d.size(), 1u);
  EXPECT_EQ(d.earliest(), transfer_t0 + 300ms);
  EXPECT_EQ(d.take_due(transfer_t0 + 1h), (std::vector<std::uint64_t>{3}));
  EXPECT_TRUE(d.empty());
  EXPECT_FALSE(d.earliest());
}

TEST(TransferDeadlines, ARemovedTransferIsNeverDueAndRemovingTwiceIsHarmless) {
  transfer_due first, second;
  transfer_deadlines d;
  d.add(first, 1, transfer_t0 + 100ms);
  d.add(second, 2, transfer_t0 + 100ms);  // the same due time: both are kept
  d.remove(first);
  d.remove(first);  // a transfer ends once, but its entry may have been taken or removed
  EXPECT_EQ(d.take_due(transfer_t0 + 100ms), (std::vector<std::uint64_t>{2}));
  d.remove(second);  // taken already
  EXPECT_TRUE(d.empty());
}

TEST(TransferDeadlines, EqualDueTimesComeOutInTheOrderTheyWereAdded) {
  std::vector<transfer_due> entries(5);
  transfer_deadlines d;
  for (std::uint64_t id = 0; id < entries.size(); ++id)
    d.add(entries[id], id, transfer_t0 + 100ms);
  EXPECT_EQ(d.take_due(transfer_t0 + 100ms), (std::vector<std::uint64_t>{0, 1, 2, 3, 4}));
}

TEST(TransferDeadlines, EntriesStillTrackedAreLetGoWhenTheDeadlinesGo) {
  transfer_due e;
  {
    transfer_deadlines d;
    d.add(e, 7, transfer_t0);
    EXPECT_TRUE(e.tracked());
  }
  EXPECT_FALSE(e.tracked());
}

TEST(TransferDeadlines, TrackingATransferAllocatesNothing) {
  // Thousands in flight: the entries live in the transfers (a std::multimap took a node each).
  if (!test::glibc_heap_in_use()) GTEST_SKIP() << "mallinfo2 does not see a sanitizer's heap";
  std::vector<transfer_due> entries(10'000);
  transfer_deadlines d;
  const std::size_t before = *test::glibc_heap_in_use();
  for (std::uint64_t id = 0; id < entries.size(); ++id)
    d.add(entries[id], id, transfer_t0 + std::chrono::milliseconds(id % 97));
  const std::size_t after = *test::glibc_heap_in_use();
  EXPECT_EQ(d.size(), entries.size());
  EXPECT_EQ(after, before);
  for (auto& e : entries)
    d.remove(e);
  EXPECT_TRUE(d.empty());
}

}  // namespace
}  // namespace idem::detail
