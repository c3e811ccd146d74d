#include "mock_server/counters.hpp"

#include <gtest/gtest.h>

#include "mock_server/schema.hpp"

namespace idem::mock {
namespace {

class counters_test : public ::testing::Test {
 protected:
  void SetUp() override { create_schema(db); }
  database db{":memory:"};
  counters stats{db};
};

TEST_F(counters_test, CounterNeverIncrementedReadsZero) {
  EXPECT_EQ(stats.get("replays"), 0);
  EXPECT_TRUE(stats.all().empty());
}

TEST_F(counters_test, IncrementAddsOneByDefault) {
  stats.increment("requests");
  stats.increment("requests");
  EXPECT_EQ(stats.get("requests"), 2);
}

TEST_F(counters_test, IncrementAddsTheGivenAmount) {
  stats.increment("records_purged", 40);
  stats.increment("records_purged", 2);
  EXPECT_EQ(stats.get("records_purged"), 42);
}

TEST_F(counters_test, CountersAreIndependent) {
  stats.increment("requests", 3);
  stats.increment("replays");
  EXPECT_EQ(stats.get("requests"), 3);
  EXPECT_EQ(stats.get("replays"), 1);
}

TEST_F(counters_test, AllListsEveryCounterWithItsValue) {
  stats.increment("requests", 3);
  stats.increment("replays");
  std::map<std::string, std::int64_t> expected{{"replays", 1}, {"requests", 3}};
  EXPECT_EQ(stats.all(), expected);
}

TEST_F(counters_test, IncrementInATransactionThatRollsBackIsUndone) {
  stats.increment("requests");
  {
    transaction txn{db};
    stats.increment("requests", 10);
    EXPECT_EQ(stats.get("requests"), 11);
  }
  EXPECT_EQ(stats.get("requests"), 1);
}

TEST_F(counters_test, IncrementInACommittedTransactionIsKept) {
  transaction txn{db};
  stats.increment("requests", 10);
  txn.commit();
  EXPECT_EQ(stats.get("requests"), 10);
}

}  // namespace
}  // namespace idem::mock
