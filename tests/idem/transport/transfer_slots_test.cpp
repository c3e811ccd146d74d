// The transport's transfers by id (src/transport/transfer_slots.hpp): slots are reused, ids are
// not.

#include "transport/transfer_slots.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace idem::detail {
namespace {

struct item {
  int value;
};

std::unique_ptr<item> make(int v) {
  return std::make_unique<item>(item{v});
}

TEST(TransferSlots, FindsWhatItHoldsUntilItIsTaken) {
  transfer_slots<item> slots;
  const auto a = slots.insert(make(1));
  const auto b = slots.insert(make(2));
  EXPECT_NE(a, b);
  EXPECT_EQ(slots.size(), 2u);
  ASSERT_NE(slots.find(a), nullptr);
  EXPECT_EQ(slots.find(a)->value, 1);
  EXPECT_EQ(slots.find(b)->value, 2);
  auto taken = slots.take(a);
  ASSERT_NE(taken, nullptr);
  EXPECT_EQ(taken->value, 1);
  EXPECT_EQ(slots.find(a), nullptr);
  EXPECT_EQ(slots.take(a), nullptr);  // taken once only
  EXPECT_EQ(slots.size(), 1u);
  EXPECT_FALSE(slots.empty());
  EXPECT_NE(slots.take(b), nullptr);
  EXPECT_TRUE(slots.empty());
}

TEST(TransferSlots, TheIdOfAnEndedItemFindsNothingAfterItsSlotIsReused) {
  // A cancellation posted for a transfer that ended meanwhile must not reach the next transfer
  // that took its slot.
  transfer_slots<item> slots;
  const auto old_id = slots.insert(make(1));
  ASSERT_NE(slots.take(old_id), nullptr);
  const auto new_id = slots.insert(make(2));
  EXPECT_NE(new_id, old_id);
  EXPECT_EQ(static_cast<std::uint32_t>(new_id), static_cast<std::uint32_t>(old_id));  // reused
  EXPECT_EQ(slots.find(old_id), nullptr);
  EXPECT_EQ(slots.take(old_id), nullptr);
  ASSERT_NE(slots.find(new_id), nullptr);
  EXPECT_EQ(slots.find(new_id)->value, 2);
}

TEST(TransferSlots, AnIdItNeverGaveOutFindsNothing) {
  transfer_slots<item> slots;
  EXPECT_EQ(slots.find(0), nullptr);
  const auto id = slots.insert(make(1));
  EXPECT_EQ(slots.find(id + 1), nullptr);             // a slot that does not exist
  EXPECT_EQ(slots.find(id + (1ULL << 32)), nullptr);  // its slot, a later serial
}

TEST(TransferSlots, IdsListsEveryItemHeld) {
  transfer_slots<item> slots;
  std::vector<std::uint64_t> held;
  for (int k = 0; k < 10; ++k)
    held.push_back(slots.insert(make(k)));
  for (int k = 0; k < 10; k += 3)
    slots.take(held[k]);
  std::erase_if(held, [&](std::uint64_t id) { return slots.find(id) == nullptr; });
  auto listed = slots.ids();
  std::ranges::sort(listed);
  std::ranges::sort(held);
  EXPECT_EQ(listed, held);
  for (auto id : listed)
    slots.take(id);
  EXPECT_TRUE(slots.empty());
  EXPECT_TRUE(slots.ids().empty());
}

}  // namespace
}  // namespace idem::detail
