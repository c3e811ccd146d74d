// The SQLite journal as an intent store: what survives a restart (records with their exact
// bytes, timelines, the order of open intents, an attempt the process died in), group commit,
// audit retention, counts, and concurrent writers.

#include <sqlite3.h>

#include <atomic>
#include <thread>

#include "tests/idem/support/sqlite_journal_fixture.hpp"
#include "tests/support/work_counting_executor.hpp"

namespace idem::test::journal {
namespace {

using kind = timeline_entry::kind;

class sqlite_journal_test : public journal_fixture {};

std::vector<std::string> keys_of(const std::vector<intent_record>& records) {
  std::vector<std::string> keys;
  for (const auto& r : records)
    keys.push_back(r.what.key().str());
  return keys;
}

std::vector<kind> kinds_of(const std::vector<timeline_entry>& lines) {
  std::vector<kind> kinds;
  for (const auto& l : lines)
    kinds.push_back(l.what);
  return kinds;
}

TEST_F(sqlite_journal_test, ADeclarativeLookupSurvivesReopenExactly) {
  const business_lookup lookup{.url = "/v2/invoices?ref={invoice_ref}&c={/customer/id}",
                               .business_id = "inv-7",
                               .select = "/results",
                               .identify = "/ref",
                               .match = {{"/total"},
                                         {.pointer = "/sum", .payload_pointer = "/total"},
                                         {.pointer = "/state", .equals = "paid"}},
                               .conflict_on_other = true,
                               .predicate = "same-customer"};
  const auto i =
      intent::create({"POST", "/v2/invoices"}, {{"invoice_ref", "inv-7"}, {"total", 10}}, lookup);
  const auto none = intent::create({"POST", "/v2/notes"}, {{"n", 1}});
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(i)));
    ASSERT_FALSE(write_durable(*j, created(none)));
  }
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(j->find(i.key())->what.lookup(), lookup);
  EXPECT_EQ(j->find(none.key())->what.lookup(), business_lookup{});
}

TEST_F(sqlite_journal_test, FilesFromBeforeDeclarativeLookupsReadTheirPresetNames) {
  const auto created_order = orders::create(sample_order("m-old"));
  const auto paid = orders::pay("ord_7", {.amount_minor = 10, .currency = "EUR"});
  const auto cancelled = orders::cancel("ord_8");
  {
    auto j = open();
    ASSERT_TRUE(j);
    for (const auto& what : {created_order, paid, cancelled}) {
      ASSERT_FALSE(write_durable(*j, created(what)));
    }
  }
  // What the previous format wrote in the column: the name of the orders lookup.
  for (const auto& [what, name] :
       {std::pair{created_order, "order_created"}, std::pair{paid, "payment_captured"},
        std::pair{cancelled, "order_cancelled"}}) {
    exec_sql(path(), "UPDATE intents SET lookup_kind = '" + std::string(name) + "' WHERE key = '" +
                         what.key().str() + "'");
  }
  ASSERT_EQ(query_int(path(), "SELECT count(*) FROM intents WHERE lookup_kind NOT LIKE '{%'"), 3);
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(j->find(created_order.key())->what.lookup(), orders::order_created_lookup("m-old"));
  EXPECT_EQ(j->find(paid.key())->what.lookup(), orders::payment_captured_lookup("ord_7"));
  EXPECT_EQ(j->find(cancelled.key())->what.lookup(), orders::order_cancelled_lookup("ord_8"));
}

TEST_F(sqlite_journal_test, RecordsAndTimelinesSurviveReopenWithExactBodyBytes) {
  // Bytes no serializer would produce (spaces, unsorted keys): a resume must send these.
  const std::string odd_body = R"({ "merchant_order_id":"m-odd",  "amount_minor" : 1500 })";
  const auto paid = orders::create(sample_order("m-paid"));
  const auto lost = *intent::restore_exact(idempotency_key::mint(), {"POST", "/v1/orders"},
                                           odd_body, orders::order_created_lookup("m-odd"));
  const auto fresh = orders::create(sample_order("m-fresh"));
  const std::string created_body(70 * 1024, 'x');  // over the 64 KiB the file keeps
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(paid, t0)));
    ASSERT_FALSE(write_durable(*j, created(lost, t0 + 1s)));
    ASSERT_FALSE(write_durable(*j, created(fresh, t0 + 2s)));
    ASSERT_FALSE(write_durable(*j, started(paid, 1, t0 + 3s)));
    ASSERT_FALSE(write_durable(*j, finished(paid, 1, attempt_class::succeeded, 201, t0 + 4s)));
    ASSERT_FALSE(
        write_durable(*j, reported(paid, outcome_kind::succeeded, 201, created_body, t0 + 4s)));
    ASSERT_FALSE(write_durable(*j, started(lost, 1, t0 + 5s)));
    ASSERT_FALSE(write_durable(*j, finished(lost, 1, attempt_class::unknown, 503, t0 + 6s)));
    ASSERT_FALSE(write_durable(*j, reported(lost, outcome_kind::unresolved, 0, {}, t0 + 6s)));

    EXPECT_EQ(keys_of(j->open_intents()),
              (std::vector<std::string>{lost.key().str(), fresh.key().str()}));
    // The final record was committed, so it left memory: find() reads the file, which keeps
    // 64 KiB of the deciding answer's body.
    auto final_one = j->find(paid.key());
    ASSERT_TRUE(final_one);
    EXPECT_EQ(final_one->state, intent_state::succeeded);
    EXPECT_EQ(final_one->final_body, created_body.substr(0, 64 * 1024));
  }

  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(keys_of(j->open_intents()),
            (std::vector<std::string>{lost.key().str(), fresh.key().str()}));

  auto r = j->find(lost.key());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->what.body(), odd_body);
  EXPECT_EQ(r->what.key(), lost.key());
  EXPECT_EQ(r->what.op().path, "/v1/orders");
  EXPECT_EQ(r->what.lookup(), orders::order_created_lookup("m-odd"));
  EXPECT_EQ(r->principal, "sha256:principal-a");
  EXPECT_EQ(r->created_at, t0 + 1s);
  EXPECT_EQ(r->first_attempt_at, t0 + 5s);
  EXPECT_EQ(r->attempts, 1u);
  EXPECT_EQ(r->attempts_finished, 1u);
  EXPECT_EQ(r->last_class, attempt_class::unknown);
  EXPECT_TRUE(r->maybe_sent());
  EXPECT_EQ(r->state, intent_state::open);
  EXPECT_EQ(r->last_outcome, outcome_kind::unresolved);

  auto done = j->find(paid.key());
  ASSERT_TRUE(done);
  EXPECT_EQ(done->state, intent_state::succeeded);
  EXPECT_EQ(done->final_status, 201);
  EXPECT_EQ(done->finished_at, t0 + 4s);
  EXPECT_EQ(done->what.body(), paid.body());
  EXPECT_FALSE(j->find(idempotency_key::mint()));

  const auto lines = j->timeline(paid.key());
  EXPECT_EQ(kinds_of(lines), (std::vector<kind>{kind::created, kind::attempt_started,
                                                kind::attempt_finished, kind::outcome}));
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[0].detail, "POST /v1/orders");
  EXPECT_EQ(lines[2].attempt, 1u);
  EXPECT_EQ(lines[2].cls, attempt_class::succeeded);
  EXPECT_EQ(lines[2].status, 201);
  EXPECT_EQ(lines[2].request_id, "req-1");
  EXPECT_EQ(lines[2].duration, 42ms);
  EXPECT_EQ(lines[2].at, t0 + 4s);
  EXPECT_EQ(lines[3].detail, "succeeded");
  EXPECT_TRUE(j->timeline(idempotency_key::mint()).empty());
}

TEST_F(sqlite_journal_test, AttemptTheProcessDiedInReopensAsMaybeSent) {
  const auto order = orders::create(sample_order("m-died"));
  // A process that makes the attempt's start durable, then dies.
  const int status = die_after_writing({created(order), started(order, 1, t0 + 1s)});
  ASSERT_EQ(status, 0);

  auto j = open();
  ASSERT_TRUE(j);
  auto r = j->find(order.key());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->attempts, 1u);
  EXPECT_EQ(r->attempts_finished, 0u);
  EXPECT_TRUE(r->maybe_sent());
  EXPECT_EQ(keys_of(j->open_intents()), (std::vector<std::string>{order.key().str()}));
}

TEST_F(sqlite_journal_test, PlannedIntentKeepsItsBoundPathAcrossReopen) {
  const auto order = orders::create(sample_order("m-plan"));
  const auto plan = orders::plan_payment(order, {.amount_minor = 1500, .currency = "EUR"});
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(order)));
    ASSERT_FALSE(write_durable(*j, events::created{.what = plan.draft(),
                                                   .principal = "sha256:principal-a",
                                                   .at = t0,
                                                   .depends_on = plan.depends_on(),
                                                   .path_bound = false}));
  }
  {
    auto j = open();
    ASSERT_TRUE(j);
    auto r = j->find(plan.key());
    ASSERT_TRUE(r);
    EXPECT_FALSE(r->path_bound);
    EXPECT_EQ(r->what.op().path, "/v1/orders/{id}/payments");
    EXPECT_EQ(r->depends_on, order.key().str());
    const auto bound = plan.bind("ord_7");
    ASSERT_FALSE(write_durable(
        *j, events::path_bound{.key = plan.key(), .op = bound.op(), .lookup = bound.lookup()}));
  }
  auto j = open();
  ASSERT_TRUE(j);
  auto r = j->find(plan.key());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->path_bound);
  EXPECT_EQ(r->what.op().path, "/v1/orders/ord_7/payments");
  EXPECT_EQ(r->what.lookup(), orders::payment_captured_lookup("ord_7"));
  EXPECT_EQ(r->what.body(), plan.draft().body());
  EXPECT_EQ(r->depends_on, order.key().str());
  EXPECT_EQ(kinds_of(j->timeline(plan.key())),
            (std::vector<kind>{kind::created, kind::path_bound}));
}

// A reopened journal numbers new intents after its open ones, read through the index of open
// intents alone: final intents newer than every open one (their seqs may come again) change
// nothing of the order open intents are resumed in, nor lose one of them.
TEST_F(sqlite_journal_test, ANewIntentAfterAReopenComesAfterEveryOpenOne) {
  const auto a = orders::create(sample_order("m-seq-a"));
  const auto b = orders::create(sample_order("m-seq-b"));
  const auto c = orders::create(sample_order("m-seq-c"));
  const auto d = orders::create(sample_order("m-seq-d"));
  {
    auto j = open();
    ASSERT_TRUE(j);
    for (const auto* i : {&a, &b, &c, &d})
      ASSERT_FALSE(write_durable(*j, created(*i)));
    ASSERT_FALSE(write_durable(*j, reported(c, outcome_kind::succeeded, 201, "{}")));
    ASSERT_FALSE(write_durable(*j, reported(d, outcome_kind::rejected, 400, "{}")));
  }
  const auto e = orders::create(sample_order("m-seq-e"));
  const auto f = orders::create(sample_order("m-seq-f"));
  const std::vector<std::string> oldest_first{a.key().str(), b.key().str(), e.key().str(),
                                              f.key().str()};
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(e)));
    j->write(created(f));
    EXPECT_EQ(keys_of(j->open_intents()), oldest_first);
  }
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(keys_of(j->open_intents()), oldest_first);  // e's seq is c's: nothing reads c's
  EXPECT_EQ(j->find(c.key())->state, intent_state::succeeded);
  EXPECT_EQ(j->find(d.key())->state, intent_state::rejected);
}

TEST_F(sqlite_journal_test, WritesInFlightShareCommits) {
  auto j = open();
  ASSERT_TRUE(j);
  const auto before = j->commits();
  std::vector<intent> intents;
  std::vector<std::shared_ptr<std::optional<std::error_code>>> results;
  for (int i = 0; i < 64; ++i) {
    intents.push_back(orders::create(sample_order("m-" + std::to_string(i))));
    results.push_back(start_write(*j, created(intents.back())));
  }
  run_until([&] {
    return std::all_of(results.begin(), results.end(),
                       [](const auto& r) { return r->has_value(); });
  });
  for (const auto& r : results)
    EXPECT_EQ(r->value_or(journal_errc::closed), std::error_code{});
  const auto commits = j->commits() - before;
  EXPECT_GE(commits, 1u);
  EXPECT_LT(commits, 64u);
  EXPECT_EQ(j->counts().intents, 64u);
}

TEST_F(sqlite_journal_test, ItsHoldOnTheCallersLoopIsLetGoOnlyOnThatLoop) {
  // The journal completes from its writer thread. Were its hold on the caller's io_context let
  // go there, the last hold's stop could land after the caller restarted the loop for its next
  // write, and run() would return with that write's completion still owed.
  auto j = open();
  ASSERT_TRUE(j);
  auto counts = std::make_shared<idem::kit::work_counts>();
  const boost::asio::any_io_executor loop{idem::kit::work_counting_executor<false>(io, counts)};
  const auto order = orders::create(sample_order("m-loop"));
  EXPECT_FALSE(write_durable(*j, created(order), loop));
  EXPECT_FALSE(write_durable(*j, started(order, 1), loop));
  EXPECT_FALSE(write_durable(*j, finished(order, 1, attempt_class::succeeded, 201), loop));
  EXPECT_FALSE(
      write_durable(*j, reported(order, outcome_kind::succeeded, 201, R"({"id":"o-1"})"), loop));
  j.reset();  // the writer thread has ended: whatever it held is let go by now

  EXPECT_GE(counts->taken.load(), 4);
  EXPECT_EQ(counts->held.load(), 0);
  EXPECT_EQ(counts->let_go_off_loop.load(), 0);
}

TEST_F(sqlite_journal_test, PurgeForgetsOldFinalIntentsAndKeepsOpenOnes) {
  const auto old_paid = orders::create(sample_order("m-old"));
  const auto old_abandoned = orders::create(sample_order("m-abandoned"));
  const auto recent_paid = orders::create(sample_order("m-recent"));
  const auto ancient_open = orders::create(sample_order("m-ancient"));
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(ancient_open, t0 - 24h * 365)));
    ASSERT_FALSE(write_durable(*j, started(ancient_open, 1, t0 - 24h * 365)));
    for (const auto* i : {&old_paid, &old_abandoned, &recent_paid})
      ASSERT_FALSE(write_durable(*j, created(*i, t0 - 24h * 100)));
    ASSERT_FALSE(write_durable(*j, reported(old_paid, outcome_kind::succeeded, 201, "{}", t0)));
    ASSERT_FALSE(write_durable(*j, events::abandoned{.key = old_abandoned.key(), .at = t0}));
    ASSERT_FALSE(write_durable(
        *j, reported(recent_paid, outcome_kind::succeeded, 201, "{}", t0 + 24h * 10)));

    EXPECT_EQ(j->purge_final_before(t0 + 1s), 2u);
    EXPECT_FALSE(j->find(old_paid.key()));
    EXPECT_FALSE(j->find(old_abandoned.key()));
    EXPECT_TRUE(j->timeline(old_paid.key()).empty());
    EXPECT_TRUE(j->find(recent_paid.key()));
    ASSERT_TRUE(j->find(ancient_open.key()));
    EXPECT_EQ(keys_of(j->open_intents()), (std::vector<std::string>{ancient_open.key().str()}));
  }
  // Their rows are gone, timelines and all.
  EXPECT_EQ(query_int(path(), "SELECT count(*) FROM intents WHERE key = '" + old_paid.key().str() +
                                  "' OR key = '" + old_abandoned.key().str() + "'"),
            0);

  // At open, with the clock 41 days on and 30 days of retention: the recent one goes too.
  auto o = options();
  o.wall_clock = [] { return t0 + 24h * 41; };
  o.audit_retention = std::chrono::hours{24 * 30};
  auto j = open(o);
  ASSERT_TRUE(j);
  EXPECT_FALSE(j->find(recent_paid.key()));
  EXPECT_TRUE(j->timeline(recent_paid.key()).empty());
  auto open_one = j->find(ancient_open.key());
  ASSERT_TRUE(open_one);
  EXPECT_TRUE(open_one->maybe_sent());
  EXPECT_EQ(j->counts().intents, 1u);
}

TEST_F(sqlite_journal_test, CountsSortEveryIntentInTheFile) {
  auto j = open();
  ASSERT_TRUE(j);
  auto make = [&](const std::string& id) {
    auto i = orders::create(sample_order(id));
    EXPECT_FALSE(write_durable(*j, created(i)));
    return i;
  };
  const auto succeeded = make("m-s");
  const auto rejected = make("m-r");
  const auto abandoned = make("m-a");
  make("m-never-sent");
  const auto refused = make("m-refused");  // every attempt provably never left
  const auto in_flight = make("m-in-flight");
  const auto lost = make("m-lost");
  ASSERT_FALSE(write_durable(*j, reported(succeeded, outcome_kind::succeeded, 201)));
  ASSERT_FALSE(write_durable(*j, reported(rejected, outcome_kind::rejected, 400)));
  ASSERT_FALSE(write_durable(*j, events::abandoned{.key = abandoned.key(), .at = t0}));
  ASSERT_FALSE(write_durable(*j, started(refused, 1)));
  ASSERT_FALSE(write_durable(*j, finished(refused, 1, attempt_class::not_sent, 0)));
  ASSERT_FALSE(write_durable(*j, started(in_flight, 1)));
  ASSERT_FALSE(write_durable(*j, started(lost, 1)));
  ASSERT_FALSE(write_durable(*j, finished(lost, 1, attempt_class::unknown, 502)));

  const auto c = j->counts();
  EXPECT_EQ(c.intents, 7u);
  EXPECT_EQ(c.succeeded, 1u);
  EXPECT_EQ(c.rejected, 1u);
  EXPECT_EQ(c.not_sent, 3u);    // abandoned, never sent, refused
  EXPECT_EQ(c.unresolved, 2u);  // in flight, lost
}

TEST_F(sqlite_journal_test, ConcurrentWritersOfDistinctIntentsAllLand) {
  constexpr int threads = 4;
  constexpr int per_thread = 25;
  std::vector<std::vector<intent>> made(threads);
  std::atomic<int> completions{0};
  std::atomic<int> failures{0};
  {
    auto j = open();
    ASSERT_TRUE(j);
    std::vector<std::thread> writers;
    for (int t = 0; t < threads; ++t) {
      writers.emplace_back([&, t] {
        for (int i = 0; i < per_thread; ++i) {
          auto order =
              orders::create(sample_order("m-" + std::to_string(t) + "-" + std::to_string(i)));
          made[t].push_back(order);
          auto done = boost::asio::bind_executor(io, [&](std::error_code ec) {
            if (ec) ++failures;
            ++completions;
          });
          j->async_write(created(order), io.get_executor(), done);
          j->async_write(started(order, 1), io.get_executor(), done);
          j->write(finished(order, 1, attempt_class::succeeded, 201));
          j->async_write(reported(order, outcome_kind::succeeded, 201, "{}"), io.get_executor(),
                         done);
        }
      });
    }
    for (auto& w : writers)
      w.join();
    run_until([&] { return completions == threads * per_thread * 3; });
    EXPECT_EQ(failures, 0);
  }
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(j->counts().succeeded, static_cast<std::uint64_t>(threads * per_thread));
  for (const auto& list : made) {
    for (const auto& order : list) {
      auto r = j->find(order.key());
      ASSERT_TRUE(r);
      EXPECT_EQ(r->state, intent_state::succeeded);
      EXPECT_EQ(r->attempts_finished, 1u);
      EXPECT_EQ(j->timeline(order.key()).size(), 4u);
    }
  }
}

TEST_F(sqlite_journal_test, EventsOfUnknownIntentsAreIgnoredButStillComplete) {
  auto j = open();
  ASSERT_TRUE(j);
  const auto stranger = orders::create(sample_order("m-stranger"));
  auto slot = start_write(*j, started(stranger, 1));
  EXPECT_FALSE(slot->has_value());  // never inline
  run_until([&] { return slot->has_value(); });
  EXPECT_EQ(*slot, std::error_code{});
  EXPECT_FALSE(j->find(stranger.key()));
  EXPECT_TRUE(j->timeline(stranger.key()).empty());
  EXPECT_EQ(j->counts().intents, 0u);
}

TEST_F(sqlite_journal_test, LateEventsOfACommittedFinalIntentUpdateItNeverReplaceIt) {
  auto j = open();
  ASSERT_TRUE(j);
  const auto order = orders::create(sample_order("m-late"));
  ASSERT_FALSE(write_durable(*j, created(order)));
  ASSERT_FALSE(write_durable(*j, reported(order, outcome_kind::succeeded, 201, R"({"id":"o"})")));
  // Committed and evicted from memory. A second `created` (another principal) changes nothing;
  // a late line is added to the stored record.
  auto again = created(order, t0 + 1h);
  again.principal = "sha256:someone-else";
  ASSERT_FALSE(write_durable(*j, again));
  ASSERT_FALSE(write_durable(*j, events::waited{.key = order.key(), .at = t0 + 1h, .delay = 5s}));
  auto r = j->find(order.key());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->state, intent_state::succeeded);
  EXPECT_EQ(r->principal, "sha256:principal-a");
  EXPECT_EQ(r->final_body, R"({"id":"o"})");
  EXPECT_EQ(r->created_at, t0);
  EXPECT_EQ(kinds_of(j->timeline(order.key())),
            (std::vector<kind>{kind::created, kind::outcome, kind::waited}));
  EXPECT_TRUE(j->open_intents().empty());
}

TEST_F(sqlite_journal_test, ClosingCommitsWhatIsQueuedAndCompletesItsWrites) {
  const auto order = orders::create(sample_order("m-closing"));
  std::shared_ptr<std::optional<std::error_code>> slot;
  {
    auto j = open();
    ASSERT_TRUE(j);
    j->write(created(order));  // not waited for
    slot = start_write(*j, started(order, 1));
  }
  run_until([&] { return slot->has_value(); });
  EXPECT_EQ(*slot, std::error_code{});
  auto j = open();
  ASSERT_TRUE(j);
  auto r = j->find(order.key());
  ASSERT_TRUE(r);
  EXPECT_EQ(r->attempts, 1u);
}

TEST_F(sqlite_journal_test, FlushWaitsForEverythingWrittenBefore) {
  auto j = open();
  ASSERT_TRUE(j);
  const auto order = orders::create(sample_order("m-flush"));
  j->write(created(order));
  j->write(started(order, 1));
  ASSERT_FALSE(flush(*j));
  EXPECT_EQ(j->counts().unresolved, 1u);  // counts() reads the file: the writes are there
}

TEST_F(sqlite_journal_test, ReadOnlyOpenSeesTheFileBesideTheWriterAndRefusesWrites) {
  auto j = open();
  ASSERT_TRUE(j);
  const auto order = orders::create(sample_order("m-inspect"));
  ASSERT_FALSE(write_durable(*j, created(order)));
  ASSERT_FALSE(write_durable(*j, started(order, 1)));
  ASSERT_FALSE(flush(*j));  // the start of an intent in the file needs no commit of its own

  auto o = options();
  o.read_only = true;
  auto viewer = open(o);  // no lock needed while the writer runs
  ASSERT_TRUE(viewer);
  auto r = viewer->find(order.key());
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->maybe_sent());
  EXPECT_EQ(keys_of(viewer->open_intents()), (std::vector<std::string>{order.key().str()}));
  EXPECT_EQ(viewer->timeline(order.key()).size(), 2u);
  EXPECT_EQ(viewer->counts().unresolved, 1u);
  EXPECT_EQ(write_durable(*viewer, finished(order, 1, attempt_class::succeeded, 201)),
            journal_errc::read_only);
}

TEST_F(sqlite_journal_test, AJournalThatOutlivesTheEventLoopOfItsWritesNeverTouchesItAgain) {
  // As docs/JOURNAL.md scopes it, a journal can outlive the io_context its writes were started
  // from. Writes still waiting for their commit when that io_context goes are dropped with it
  // (their handlers destroyed uncalled, as the io_context destroys its own); the writer thread
  // never posts to, nor lets go of work on, the destroyed scheduler. (Before, it did: ASan and
  // valgrind reported the use after free; the release build cannot see it.)
  auto j = open();
  int completed = 0;
  {
    boost::asio::io_context loop;
    for (int n = 0; n < 500; ++n) {
      const auto order = orders::create(sample_order("m-" + std::to_string(n)));
      j->async_write(created(order), loop.get_executor(), [&](std::error_code) { ++completed; });
    }
    // Destroyed with the writes pending, never run.
  }
  // The journal goes on: a write from a new event loop completes as usual.
  boost::asio::io_context next;
  std::optional<std::error_code> later;
  j->async_write(created(orders::create(sample_order("m-later"))), next.get_executor(),
                 [&](std::error_code ec) { later = ec; });
  next.run();
  EXPECT_EQ(later, std::error_code{});
  j.reset();
  EXPECT_EQ(completed, 0) << "a completion ran on a destroyed io_context";
}

}  // namespace
}  // namespace idem::test::journal
