// The transport's own due times (src/transfer_deadlines.hpp): each transfer runs out of time
// counted from when the transport accepted it, whenever curl got round to starting it.

#include "src/transfer_deadlines.hpp"

#include <gtest/gtest.h>

namespace idem::detail {
namespace {

using namespace std::chrono_literals;
using clock = transfer_deadlines::clock;

const clock::time_point transfer_t0 = clock::time_point{} + 1h;

TEST(TransferDeadlines, TakesWhatIsDueEarliestFirstAndKeepsTheRest) {
  transfer_deadlines d;
  d.add(3, transfer_t0 + 300ms);
  d.add(1, transfer_t0 + 100ms);
  d.add(2, transfer_t0 + 200ms);
  EXPECT_EQ(d.earliest(), transfer_t0 + 100ms);
  EXPECT_TRUE(d.take_due(transfer_t0 + 99ms).empty());
  EXPECT_EQ(d.take_due(transfer_t0 + 200ms), (std::vector<std::uint64_t>{1, 2}));
  EXPECT_EQ(d.size(), 1u);
  EXPECT_EQ(d.earliest(), transfer_t0 + 300ms);
  EXPECT_EQ(d.take_due(transfer_t0 + 1h), (std::vector<std::uint64_t>{3}));
  EXPECT_TRUE(d.empty());
  EXPECT_FALSE(d.earliest());
}

TEST(TransferDeadlines, ARemovedTransferIsNeverDue) {
  transfer_deadlines d;
  auto first = d.add(1, transfer_t0 + 100ms);
  d.add(2, transfer_t0 + 100ms);  // the same due time: both are kept
  d.remove(first);
  EXPECT_EQ(d.take_due(transfer_t0 + 100ms), (std::vector<std::uint64_t>{2}));
  EXPECT_TRUE(d.empty());
}

}  // namespace
}  // namespace idem::detail
