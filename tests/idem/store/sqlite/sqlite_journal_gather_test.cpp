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
  // Intents not yet in the file: their starts wait for a commit (the start of a planned intent
  // need not: sqlite_journal_unwaited_start_test.cpp).
  const intent c = orders::create(sample_order("gather-c"));
  const intent d = orders::create(sample_order("gather-d"));

  // An intent's first durable point as a lone submission makes it: its created queued, its
  // start waited for.
  std::shared_ptr<std::optional<std::error_code>> start_new(sqlite_journal& j, const intent& i) {
    j.write(created(i));
    return start_write(j, started(i, 1));
  }
};

TEST_F(sqlite_journal_gather_test, UnderLoadWritesArrivingTogetherShareOneCommit) {
  auto j = open_gathering();
  ASSERT_TRUE(j);
  commit_two_together(*j);
  const auto before = j->commits();
  auto first = start_new(*j, c);
  auto second = start_new(*j, d);
  ASSERT_FALSE(flush(*j));  // ends the gather: one commit for the three
  run_until([&] { return first->has_value() && second->has_value(); });
  EXPECT_EQ(*first, std::error_code{});
  EXPECT_EQ(*second, std::error_code{});
  EXPECT_EQ(j->commits() - before, 1u);
  EXPECT_EQ(j->counts().unresolved, 2u);  // both starts are in the file (a and b never started)
}

TEST_F(sqlite_journal_gather_test, AWriteAloneIsNeverHeldBack) {
  auto j = open_gathering();
  ASSERT_TRUE(j);
  // One intent at a time, each waiting for its first durable point (its start, which takes its
  // created along): every commit serves one caller, so none waits (a wait would be the hour,
  // and run_until gives up after 30 s).
  for (const intent* i : {&a, &b, &c, &d}) {
    auto slot = start_new(*j, *i);
    run_until([&] { return slot->has_value(); });
    ASSERT_EQ(*slot, std::error_code{});
  }
  EXPECT_EQ(j->commits(), 4u);
}

TEST_F(sqlite_journal_gather_test, ClosingDoesNotWaitForTheGatherToEnd) {
  std::shared_ptr<std::optional<std::error_code>> slot;
  {
    auto j = open_gathering();
    ASSERT_TRUE(j);
    commit_two_together(*j);
    slot = start_new(*j, c);  // the writer gathers for an hour
  }
  run_until([&] { return slot->has_value(); });
  EXPECT_EQ(*slot, std::error_code{});
  auto j = open();
  ASSERT_TRUE(j);
  const auto r = j->find(c.key());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->attempts, 1u);
}

}  // namespace
}  // namespace idem::test::journal
