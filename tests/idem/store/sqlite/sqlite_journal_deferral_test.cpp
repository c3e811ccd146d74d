// What the journal commits without being asked (issue 47): the events the client does not wait
// for (an attempt's end, a wait, a lookup, the outcome) ride with the next write it waits for,
// so an intent costs one commit (one fsync) instead of two; they are committed at the latest
// after `deferred_commit_delay`, at a flush and when the journal closes; and a process killed
// before that loses only those lines: its intent reads back as possibly sent, never as done or
// as never sent.

#include <filesystem>

#include "tests/idem/support/sqlite_journal_fixture.hpp"
#include "tests/support/http/integration.hpp"

namespace idem::test::journal {
namespace {

std::vector<timeline_entry::kind> kinds_of_deferral_test(const std::vector<timeline_entry>& lines) {
  std::vector<timeline_entry::kind> kinds;
  for (const auto& l : lines)
    kinds.push_back(l.what);
  return kinds;
}

class sqlite_journal_deferral_test : public journal_fixture {
 protected:
  // The deferred events wait for a write, a flush or the close, never for the clock: the
  // tests below count commits and must not depend on how fast the machine is.
  std::shared_ptr<sqlite_journal> open_without_timer() {
    auto o = options();
    o.deferred_commit_delay = std::chrono::hours(1);
    return open(o);
  }

  // After a process died with its last events uncommitted: not lost, not taken for done, but
  // open and possibly sent, so a resume asks the server again under the same key (which
  // replays its answer) instead of minting a new one or giving up; its timeline ends at the
  // attempt's start.
  void expect_reopened_open_and_maybe_sent(const intent& order) {
    auto j = open();
    ASSERT_TRUE(j);
    const auto r = j->find(order.key());
    ASSERT_TRUE(r) << "the intent was lost";
    EXPECT_EQ(r->state, intent_state::open);
    EXPECT_TRUE(r->maybe_sent());
    EXPECT_EQ(r->what.key(), order.key());
    EXPECT_EQ(r->what.body(), order.body());
    EXPECT_EQ(kinds_of_deferral_test(j->timeline(order.key())),
              (std::vector<timeline_entry::kind>{timeline_entry::kind::created,
                                                 timeline_entry::kind::attempt_started}));
  }

  // One intent as the client journals a lone submission: its start waited for (its created
  // rides along), the rest not.
  void one_intent(sqlite_journal& j, const intent& what) {
    j.write(created(what));
    ASSERT_FALSE(write_durable(j, started(what, 1)));
    j.write(finished(what, 1, attempt_class::succeeded, 201));
    j.write(reported(what, outcome_kind::succeeded, 201, R"({"id":"o-1"})"));
  }
};

// A plan of many (client::async_plan_all) is recorded under one lock and waits once: one
// commit, one completion, every intent there after a reopen in the order written; a created
// among them for an intent already final in the file changes nothing, as alone.
TEST_F(sqlite_journal_deferral_test, ManyEventsWrittenTogetherAreOneCommitAndOneCompletion) {
  const auto done = orders::create(sample_order("all-done"));
  std::vector<intent> planned;
  std::vector<intent_event> events;
  for (int i = 0; i < 40; ++i) {
    planned.push_back(orders::create(sample_order("all-" + std::to_string(i))));
    events.emplace_back(created(planned.back()));
    if (i == 20) events.emplace_back(created(done));
  }
  {
    auto j = open_without_timer();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(done)));
    ASSERT_FALSE(write_durable(*j, reported(done, outcome_kind::succeeded, 201, "{}")));
    ASSERT_EQ(j->commits(), 2u);
    int calls = 0;
    std::optional<std::error_code> got;
    j->async_write_all(events, io.get_executor(),
                       boost::asio::bind_executor(io, [&](std::error_code ec) {
                         ++calls;
                         got = ec;
                       }));
    run_until([&] { return got.has_value(); });
    EXPECT_EQ(got, std::error_code{});
    EXPECT_EQ(calls, 1);
    EXPECT_EQ(j->commits(), 3u);
  }
  auto o = options();
  o.read_only = true;
  auto j = open(o);
  ASSERT_TRUE(j);
  const auto open_now = j->open_intents();
  ASSERT_EQ(open_now.size(), planned.size());
  for (std::size_t i = 0; i < planned.size(); ++i)
    EXPECT_EQ(open_now[i].what.key(), planned[i].key());
  EXPECT_EQ(j->find(done.key())->state, intent_state::succeeded);
  // A read-only journal refuses them, as it refuses one.
  std::optional<std::error_code> refused;
  j->async_write_all(events, io.get_executor(),
                     boost::asio::bind_executor(io, [&](std::error_code ec) { refused = ec; }));
  run_until([&] { return refused.has_value(); });
  EXPECT_EQ(refused, make_error_code(journal_errc::read_only));
}

// A plan larger than a commit's chunk, orders (which share one lookup shape) between
// intents with lookups of their own: one commit, and every intent reads back whole after a
// reopen, with its own business ID and its own lookup (a row's lookup is worked out once per
// shape, not per row: issue 47).
TEST_F(sqlite_journal_deferral_test, APlanOfManyShapesReadsBackEachIntentsOwnLookup) {
  std::vector<intent> planned;
  std::vector<intent_event> events;
  for (int i = 0; i < 600; ++i) {
    const auto n = std::to_string(i);
    planned.push_back(i % 3 == 2 ? intent::create({"POST", "/v1/things"}, {{"n", i}},
                                                  business_lookup{.url = "/v1/things/t-" + n,
                                                                  .business_id = "t-" + n})
                                 : orders::create(sample_order("shape-" + n)));
    events.emplace_back(created(planned.back()));
  }
  {
    auto j = open_without_timer();
    ASSERT_TRUE(j);
    const auto before = j->commits();
    std::optional<std::error_code> got;
    j->async_write_all(events, io.get_executor(),
                       boost::asio::bind_executor(io, [&](std::error_code ec) { got = ec; }));
    run_until([&] { return got.has_value(); });
    EXPECT_EQ(got, std::error_code{});
    EXPECT_EQ(j->commits() - before, 1u);
  }
  auto j = open();
  ASSERT_TRUE(j);
  const auto open_now = j->open_intents();
  ASSERT_EQ(open_now.size(), planned.size());
  for (std::size_t i = 0; i < planned.size(); ++i) {
    EXPECT_EQ(open_now[i].what.key(), planned[i].key());
    EXPECT_EQ(open_now[i].what.lookup(), planned[i].lookup()) << i;
  }
}

TEST_F(sqlite_journal_deferral_test, AnIntentsEndRidesWithTheNextWaitedCommit) {
  auto j = open_without_timer();
  ASSERT_TRUE(j);
  const auto before = j->commits();
  constexpr int intents = 20;
  std::vector<intent> all;
  for (int i = 0; i < intents; ++i) {
    all.push_back(orders::create(sample_order("d-" + std::to_string(i))));
    one_intent(*j, all.back());
  }
  // One commit per intent, its start's (which takes its created along); the ends of the intents
  // cost none of their own (before: a commit for each end, about three per intent).
  EXPECT_EQ(j->commits() - before, static_cast<std::uint64_t>(intents));
  // Every end but the last is in the file already: it went with the next intent's commit.
  const auto counts = j->counts();
  EXPECT_EQ(counts.succeeded, static_cast<std::uint64_t>(intents - 1));
  EXPECT_EQ(counts.unresolved, 1u);
  // Read through the journal, nothing is missing at any moment.
  EXPECT_EQ(j->find(all.back().key())->state, intent_state::succeeded);
}

TEST_F(sqlite_journal_deferral_test, AFlushCommitsTheDeferredEvents) {
  auto j = open_without_timer();
  ASSERT_TRUE(j);
  const auto order = orders::create(sample_order("d-flush"));
  one_intent(*j, order);
  EXPECT_EQ(j->counts().succeeded, 0u);
  ASSERT_FALSE(flush(*j));
  EXPECT_EQ(j->counts().succeeded, 1u);
}

TEST_F(sqlite_journal_deferral_test, ClosingCommitsTheDeferredEvents) {
  const auto order = orders::create(sample_order("d-close"));
  {
    auto j = open_without_timer();
    ASSERT_TRUE(j);
    one_intent(*j, order);
  }
  auto j = open();
  ASSERT_TRUE(j);
  const auto r = j->find(order.key());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->state, intent_state::succeeded);
  EXPECT_EQ(r->final_body, R"({"id":"o-1"})");
  EXPECT_EQ(j->timeline(order.key()).size(), 4u);
}

TEST_F(sqlite_journal_deferral_test, DeferredEventsAreCommittedOnceTheDelayRunsOut) {
  auto o = options();
  o.deferred_commit_delay = std::chrono::milliseconds{1};
  auto j = open(o);
  ASSERT_TRUE(j);
  const auto order = orders::create(sample_order("d-delay"));
  one_intent(*j, order);
  // No other write comes: the writer commits them by itself.
  EXPECT_TRUE(idem::kit::eventually([&] { return j->counts().succeeded == 1; }));
}

TEST_F(sqlite_journal_deferral_test,
       AProcessKilledBeforeItsDeferredEventsLeftReadsBackAsMaybeSent) {
  const auto order = orders::create(sample_order("d-killed"));
  // The answer arrived and the outcome was reported, but the process dies (no destructor, no
  // flush) before anything else is committed.
  const int status = die_after_writing(
      {created(order), started(order, 1, t0 + 1s)},
      {finished(order, 1, attempt_class::succeeded, 201, t0 + 2s),
       reported(order, outcome_kind::succeeded, 201, R"({"id":"o-1"})", t0 + 2s)});
  ASSERT_EQ(status, 0);

  expect_reopened_open_and_maybe_sent(order);
  EXPECT_EQ(open()->open_intents().size(), 1u);
}

TEST_F(sqlite_journal_deferral_test, EveryKindOfDeferredEventLostWithItsProcessLosesNothing) {
  // Each event the client does not wait for, alone, with the process dying before it was
  // committed: the intent is still there, open, with its key and exact body, and counts as
  // possibly sent (the attempt's start was durable), so a resume re-asks under the same key.
  struct deferral_point {
    const char* name;
    std::function<intent_event(const intent&)> event;
  };
  const std::vector<deferral_point> points{
      {"attempt_finished",
       [](const intent& i) { return finished(i, 1, attempt_class::succeeded, 201, t0 + 2s); }},
      {"waited",
       [](const intent& i) {
         return events::waited{.key = i.key(), .at = t0 + 2s, .delay = 250ms};
       }},
      {"lookup_finished",
       [](const intent& i) {
         return events::lookup_finished{
             .key = i.key(), .at = t0 + 2s, .verdict = "found", .status = 200};
       }},
      {"outcome_reported",
       [](const intent& i) {
         return reported(i, outcome_kind::succeeded, 201, R"({"id":"o-1"})", t0 + 2s);
       }},
      {"abandoned",
       [](const intent& i) {
         return events::abandoned{.key = i.key(), .at = t0 + 2s, .reason = "order rejected"};
       }},
  };
  for (const auto& point : points) {
    SCOPED_TRACE(point.name);
    const auto order = orders::create(sample_order(std::string("d-") + point.name));
    ASSERT_EQ(die_after_writing({created(order), started(order, 1, t0 + 1s)}, {point.event(order)}),
              0);
    expect_reopened_open_and_maybe_sent(order);
  }
}

// A commit learns a new row's rowid from its INSERT (later writes find the row by it). If the key
// has a row by then after all (written here by another connection between the intent's created
// and its commit), the row is rewritten with the journal's record and its rowid read back, so
// that the intent's next write lands in that row, not in another or nowhere.
// Under load the deferred events do not all wait for the delay: once deferred_commit_intents
// intents have some waiting, the writer commits them, while the requests run (before, a load
// that finished within the delay then waited for one long commit of every outcome at its end).
// One intent fewer commits nothing; the one that fills the batch commits it.
TEST_F(sqlite_journal_deferral_test, DeferredEventsOfEnoughIntentsAreCommittedWithoutTheDelay) {
  auto o = options();
  o.deferred_commit_delay = std::chrono::hours(1);
  o.deferred_commit_intents = 8;
  auto j = open(o);
  ASSERT_TRUE(j);
  std::vector<intent> orders_in_flight;
  for (int i = 0; i < 8; ++i) {
    orders_in_flight.push_back(orders::create(sample_order("batch-" + std::to_string(i))));
    ASSERT_FALSE(write_durable(*j, created(orders_in_flight.back())));
  }
  const auto commits_before = j->commits();
  for (std::size_t i = 0; i + 1 < orders_in_flight.size(); ++i)
    j->write(reported(orders_in_flight[i], outcome_kind::succeeded, 201, "{}"));
  EXPECT_EQ(j->commits(), commits_before);  // seven: held for the delay
  EXPECT_EQ(j->counts().succeeded, 0u);
  j->write(reported(orders_in_flight.back(), outcome_kind::succeeded, 201, "{}"));
  // The count moves once the commit is in the file (a reader may see the rows a moment earlier).
  EXPECT_TRUE(idem::kit::eventually([&] { return j->commits() == commits_before + 1; }));
  EXPECT_EQ(j->counts().succeeded, 8u);
}

// The writer checkpoints the WAL itself, after the writes its commit made durable are completed
// (SQLite would otherwise do it inside that commit): the WAL is still copied into the database
// and starts over, instead of growing with every commit.
TEST_F(sqlite_journal_deferral_test, TheWalIsCheckpointedAndReusedAfterManyCommits) {
  auto j = open();
  ASSERT_TRUE(j);
  const std::string big_body(60 * 1024, 'x');  // about 15 pages of WAL per commit
  for (int i = 0; i < 300; ++i) {
    const auto order = orders::create(sample_order("wal-" + std::to_string(i)));
    ASSERT_FALSE(write_durable(*j, created(order)));
    ASSERT_FALSE(write_durable(*j, reported(order, outcome_kind::succeeded, 201, big_body)));
  }
  // 600 commits of some 4,500 pages: without checkpoints the WAL would hold them all (18 MB).
  std::error_code ec;
  const auto wal_bytes = std::filesystem::file_size(options().path + "-wal", ec);
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_LT(wal_bytes, 2000u * 4096u);
  EXPECT_EQ(j->counts().succeeded, 300u);
}

TEST_F(sqlite_journal_deferral_test, ARowThatAppearedBeforeTheCommitIsRewrittenAndFoundByRowid) {
  auto j = open_without_timer();
  ASSERT_TRUE(j);
  const auto order = orders::create(sample_order("d-rowid"));
  j->write(created(order));  // queued, not committed
  const std::string key = order.key().str();
  exec_sql(path(),
           "INSERT INTO intents (key, seq, method, path, body, lookup_kind, business_id, "
           "principal, created_at, path_bound, attempts, attempts_finished, reached_server, "
           "state, final_status, final_body, error) VALUES ('" +
               key +
               "', 999, 'POST', '/elsewhere', x'', 'none', '', '', 0, 1, 0, 0, 0, 'open', "
               "0, x'', '')");
  ASSERT_FALSE(flush(*j));
  ASSERT_FALSE(write_durable(*j, started(order, 1)));
  ASSERT_FALSE(flush(*j));  // the start of an intent in the file needs no commit of its own
  const std::string of_key = " FROM intents WHERE key = '" + key + "'";
  EXPECT_EQ(query_int(path(), "SELECT count(*)" + of_key), 1);
  EXPECT_EQ(query_int(path(), "SELECT length(body)" + of_key),
            static_cast<std::int64_t>(order.body().size()))
      << "the journal's record did not replace the row";
  EXPECT_EQ(query_int(path(), "SELECT attempts" + of_key), 1) << "the attempt went to no row";
  EXPECT_EQ(query_int(path(), "SELECT count(*) FROM intents"), 1);
}

}  // namespace
}  // namespace idem::test::journal
