// The journal's file format across versions and closes (issue 47): a file of the first format
// (events indexed by key) is read as it is by a read-only open and brought to the second
// (events indexed by their intent) by a writer's open, timelines intact; and the
// clean-shutdown mark that spares an open the full check is set only by a clean close.

#include <sqlite3.h>

#include "tests/idem/support/sqlite_journal_fixture.hpp"

namespace idem::test::journal {
namespace {

class sqlite_journal_format_test : public journal_fixture {
 protected:
  std::int64_t clean_mark() {
    return query_int(path(), "SELECT value FROM journal_state WHERE name = 'clean_shutdown'");
  }
  // Two intents with their timelines, closed.
  void write_two(const intent& a, const intent& b) {
    auto j = open();
    ASSERT_TRUE(j);
    for (const auto* what : {&a, &b}) {
      ASSERT_FALSE(write_durable(*j, created(*what)));
      ASSERT_FALSE(write_durable(*j, started(*what, 1, t0 + 1s)));
    }
    ASSERT_FALSE(write_durable(*j, finished(a, 1, attempt_class::succeeded, 201, t0 + 2s)));
    ASSERT_FALSE(write_durable(*j, reported(a, outcome_kind::succeeded, 201, "{}", t0 + 2s)));
  }
};

TEST_F(sqlite_journal_format_test, AFileOfTheFirstFormatIsReadAsItIsAndUpgradedByAWriter) {
  const auto a = orders::create(sample_order("f-a"));
  const auto b = orders::create(sample_order("f-b"));
  write_two(a, b);
  // The first format, as an idem before issue 47 wrote it.
  exec_sql(path(),
           "DROP INDEX events_by_intent; ALTER TABLE events DROP COLUMN intent;"
           "CREATE INDEX events_by_key ON events (key, seq); DROP TABLE journal_state;"
           "PRAGMA user_version = 1;");
  {
    auto o = options();
    o.read_only = true;
    auto j = open(o);
    ASSERT_TRUE(j);
    EXPECT_EQ(j->timeline(a.key()).size(), 4u);
    EXPECT_EQ(j->timeline(b.key()).size(), 2u);
  }
  EXPECT_EQ(query_int(path(), "PRAGMA user_version"), 1) << "a read-only open changed the file";

  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(query_int(path(), "PRAGMA user_version"), 2);
  EXPECT_EQ(query_int(path(), "SELECT count(*) FROM sqlite_schema WHERE name = 'events_by_key'"),
            0);
  EXPECT_EQ(query_int(path(), "SELECT count(*) FROM events WHERE intent = 0"), 0)
      << "a line kept no intent";
  EXPECT_EQ(j->timeline(a.key()).size(), 4u);
  ASSERT_FALSE(write_durable(*j, finished(b, 1, attempt_class::succeeded, 201, t0 + 3s)));
  ASSERT_FALSE(write_durable(*j, reported(b, outcome_kind::succeeded, 201, "{}", t0 + 3s)));
  EXPECT_EQ(j->timeline(b.key()).size(), 4u);
  EXPECT_EQ(j->counts().succeeded, 2u);
  // Purged by their intent, lines and all.
  EXPECT_EQ(j->purge_final_before(t0 + 1h), 2u);
  EXPECT_EQ(query_int(path(), "SELECT count(*) FROM events"), 0);
}

TEST_F(sqlite_journal_format_test, OnlyACleanCloseLeavesTheCleanShutdownMark) {
  const auto a = orders::create(sample_order("f-mark"));
  {
    auto j = open();
    ASSERT_TRUE(j);
    // Cleared, durably, before anything is written: a process dying now leaves it cleared.
    EXPECT_EQ(clean_mark(), 0);
    ASSERT_FALSE(write_durable(*j, created(a)));
  }
  EXPECT_EQ(clean_mark(), 1);
  ASSERT_EQ(die_after_writing({started(a, 1)}), 0);
  EXPECT_EQ(clean_mark(), 0) << "a process that died left the mark of a clean close";
  auto j = open();  // the full check ran, and found the file sound
  ASSERT_TRUE(j);
  EXPECT_TRUE(j->find(a.key())->maybe_sent());
}

TEST_F(sqlite_journal_format_test, TheOrdersLookupsAreStoredByNameAndReadBackWhole) {
  // 13 bytes in the row instead of about 220 of JSON (issue 47: bytes written per intent).
  const auto order = orders::create(sample_order("f-named"));
  const auto paid = orders::pay("ord_9", {.amount_minor = 10, .currency = "EUR"});
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(order)));
    ASSERT_FALSE(write_durable(*j, created(paid)));
  }
  EXPECT_EQ(query_int(path(),
                      "SELECT count(*) FROM intents WHERE lookup_kind IN "
                      "('order_created', 'payment_captured')"),
            2);
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(j->find(order.key())->what.lookup(), order.lookup());
  EXPECT_EQ(j->find(paid.key())->what.lookup(), paid.lookup());
}

}  // namespace
}  // namespace idem::test::journal
