#include "mock_server/storage/counters.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

#include "mock_server/storage/schema.hpp"

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
  stats.increment("faults_injected", 40);
  stats.increment("faults_injected", 2);
  EXPECT_EQ(stats.get("faults_injected"), 42);
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

TEST_F(counters_test, TrafficCountsLiveInMemoryUntilPersisted) {
  stats.increment("requests", 3);
  // What a process that starts on this database now would read (a counters object reads the
  // table once, when it is first read).
  EXPECT_EQ(counters{db}.get("requests"), 0);
  EXPECT_TRUE(stats.has_pending());

  stats.persist();
  EXPECT_FALSE(stats.has_pending());
  EXPECT_EQ(counters{db}.get("requests"), 3);
  EXPECT_EQ(stats.get("requests"), 3);  // not counted twice
}

TEST_F(counters_test, PersistAddsToWhatIsStored) {
  stats.increment("requests", 2);
  stats.persist();
  stats.increment("requests", 5);
  EXPECT_EQ(stats.get("requests"), 7);
  stats.persist();
  EXPECT_EQ(counters{db}.get("requests"), 7);
}

TEST_F(counters_test, AllMergesStoredAndInMemoryCounts) {
  stats.increment("requests", 2);
  stats.persist();
  stats.increment("requests");
  stats.increment("faults_injected");
  std::map<std::string, std::int64_t> expected{{"faults_injected", 1}, {"requests", 3}};
  EXPECT_EQ(stats.all(), expected);
}

TEST_F(counters_test, TrafficCountSurvivesARolledBackTransaction) {
  {
    transaction txn{db};
    stats.increment("replays");  // the answer was given whatever became of the transaction
  }
  EXPECT_EQ(stats.get("replays"), 1);
}

TEST_F(counters_test, CountInATransactionThatRollsBackIsUndone) {
  {
    transaction txn{db};
    stats.increment_in_transaction("business_id_conflicts", 10);
    EXPECT_EQ(stats.get("business_id_conflicts"), 10);
  }
  EXPECT_EQ(stats.get("business_id_conflicts"), 0);
}

TEST_F(counters_test, CountInACommittedTransactionIsStoredAtOnce) {
  transaction txn{db};
  stats.increment_in_transaction("records_purged", 10);
  txn.commit();
  EXPECT_FALSE(stats.has_pending());
  EXPECT_EQ(counters{db}.get("records_purged"), 10);
}

TEST_F(counters_test, CountInTransactionWithoutATransactionIsRefused) {
  EXPECT_THROW(stats.increment_in_transaction("records_purged"), std::logic_error);
  EXPECT_EQ(stats.get("records_purged"), 0);
}

TEST_F(counters_test, PersistInsideATransactionIsRefusedAndKeepsTheCounts) {
  stats.increment("requests");
  {
    transaction txn{db};
    EXPECT_THROW(stats.persist(), std::logic_error);
  }
  EXPECT_TRUE(stats.has_pending());
  EXPECT_EQ(stats.get("requests"), 1);
}

TEST_F(counters_test, DiscardPendingForgetsOnlyWhatIsInMemory) {
  stats.increment("requests", 2);
  stats.persist();
  stats.increment("requests", 5);
  stats.discard_pending();
  EXPECT_EQ(stats.get("requests"), 2);
}

}  // namespace
}  // namespace idem::mock
