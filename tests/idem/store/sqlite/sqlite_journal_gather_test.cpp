// Group commit under load (issue 47, journal_options::commit_gather): once a commit has served
// the writes of more than one caller, the writer waits a moment before its next commit, so that
// the writes of the intents in flight beside them share its fsync. A write alone is never held
// back, and neither a flush nor the close waits for the gather to end.
//
// The gather is an hour in these tests: only a flush or the close can end it, so whether two
// writes share a commit never depends on how fast the machine runs the test.

#include "tests/idem/support/sqlite_journal_fixture.hpp"

namespace idem::test::journal {
namespace {

class sqlite_journal_gather_test : public journal_fixture {
 protected:
  std::shared_ptr<sqlite_journal> open_gathering() {
    auto o = options();
    o.commit_gather = std::chrono::hours(1);
    return open(o);
  }

  // Two callers' writes in one commit (a plan of two): the load the gather is for.
  void commit_two_together(sqlite_journal& j) {
    auto slot = std::make_shared<std::optional<std::error_code>>();
    j.async_write_all({created(a), created(b)}, io.get_executor(),
                      boost::asio::bind_executor(io, [slot](std::error_code ec) { *slot = ec; }));
    run_until([&] { return slot->has_value(); });
    ASSERT_EQ(*slot, std::error_code{});
  }

  const intent a = orders::create(sample_order("gather-a"));
  const intent b = orders::create(sample_order("gather-b"));
};

TEST_F(sqlite_journal_gather_test, UnderLoadWritesArrivingTogetherShareOneCommit) {
  auto j = open_gathering();
  ASSERT_TRUE(j);
  commit_two_together(*j);
  const auto before = j->commits();
  auto first = start_write(*j, started(a, 1));
  auto second = start_write(*j, started(b, 1));
  ASSERT_FALSE(flush(*j));  // ends the gather: one commit for the three
  run_until([&] { return first->has_value() && second->has_value(); });
  EXPECT_EQ(*first, std::error_code{});
  EXPECT_EQ(*second, std::error_code{});
  EXPECT_EQ(j->commits() - before, 1u);
  EXPECT_EQ(j->counts().unresolved, 2u);  // both starts are in the file
}

TEST_F(sqlite_journal_gather_test, AWriteAloneIsNeverHeldBack) {
  auto j = open_gathering();
  ASSERT_TRUE(j);
  // One intent at a time, each write waited for: every commit serves one caller, so none waits
  // (a wait would be the hour, and run_until gives up after 30 s).
  ASSERT_FALSE(write_durable(*j, created(a)));
  ASSERT_FALSE(write_durable(*j, started(a, 1)));
  ASSERT_FALSE(write_durable(*j, created(b)));
  ASSERT_FALSE(write_durable(*j, started(b, 1)));
  EXPECT_EQ(j->commits(), 4u);
}

TEST_F(sqlite_journal_gather_test, ClosingDoesNotWaitForTheGatherToEnd) {
  std::shared_ptr<std::optional<std::error_code>> slot;
  {
    auto j = open_gathering();
    ASSERT_TRUE(j);
    commit_two_together(*j);
    slot = start_write(*j, started(a, 1));  // the writer gathers for an hour
  }
  run_until([&] { return slot->has_value(); });
  EXPECT_EQ(*slot, std::error_code{});
  auto j = open();
  ASSERT_TRUE(j);
  const auto r = j->find(a.key());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->attempts, 1u);
}

}  // namespace
}  // namespace idem::test::journal
