// An attempt's start that needs no commit (issue 47): the start of an intent already in the file
// (planned and committed, or read back by a resume) with no submission ended completes at once,
// so a plan of many pays one durable point, not one per intent. What makes that safe is the
// recovery of an unclean close: every open intent whose file says nothing may have executed and
// no submission ended reads back as maybe sent, first sent no later than it was created. A clean
// close keeps the exact record, and an ended submission's outcome is never rewritten.

#include "idem/memory_intent_store.hpp"
#include "store/sqlite/sqlite_journal_codec.hpp"
#include "tests/idem/support/sqlite_journal_fixture.hpp"

namespace idem::test::journal {
namespace {

class sqlite_journal_unwaited_start_test : public journal_fixture {
 protected:
  // Nothing commits the events not waited for but a waited write, a flush or the close: the
  // tests count commits and must not depend on how fast the machine is.
  [[nodiscard]] journal_options without_timer() const {
    auto o = options();
    o.deferred_commit_delay = std::chrono::hours(1);
    return o;
  }

  // A process that makes `order` durable, then runs `then` on its journal and dies at once
  // (SIGKILL: no destructor, no clean close). 0 when everything it waited for completed.
  int die_after(const intent& order, const std::function<bool(sqlite_journal&)>& then) {
    const int status = in_child_process([&] {
      auto j = sqlite_journal::open(without_timer(), child_ec_);
      if (!j) return 10;
      if (write_durable(*j, created(order))) return 11;
      if (!then(*j)) return 12;
      ::raise(SIGKILL);
      return 13;
    });
    return status == 128 + SIGKILL ? 0 : status;
  }

  // The record after a writer reopened the file (the recovery runs at a writer's open).
  std::optional<intent_record> reopened(const intent& order) {
    auto j = open();
    if (!j) return std::nullopt;
    auto r = j->find(order.key());
    EXPECT_TRUE(r) << "the intent was lost";
    return r;
  }

  std::error_code child_ec_;
};

TEST_F(sqlite_journal_unwaited_start_test,
       AStartOfAnIntentAlreadyInTheFileCompletesWithoutACommit) {
  const auto order = orders::create(sample_order("u-planned"));
  auto j = open(without_timer());
  ASSERT_TRUE(j);
  ASSERT_FALSE(write_durable(*j, created(order)));
  ASSERT_EQ(j->commits(), 1u);
  EXPECT_FALSE(write_durable(*j, started(order, 1, t0 + 1s)));
  EXPECT_EQ(j->commits(), 1u) << "the start waited for a commit of its own";
  // Recorded all the same: reads see it, and the close commits it.
  ASSERT_TRUE(j->find(order.key()));
  EXPECT_TRUE(j->find(order.key())->maybe_sent());
  j.reset();
  const auto r = reopened(order);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->attempts, 1u);
  EXPECT_EQ(r->first_attempt_at, t0 + 1s);
}

TEST_F(sqlite_journal_unwaited_start_test, ACoveredStartIsRecordedAtOnceWithoutAHandler) {
  // What the client calls first, so that a start needing no commit needs no queue hop either.
  const auto planned = orders::create(sample_order("u-covered"));
  const auto lone = orders::create(sample_order("u-not-covered"));
  auto j = open(without_timer());
  ASSERT_TRUE(j);
  ASSERT_FALSE(write_durable(*j, created(planned)));
  EXPECT_TRUE(j->write_if_covered(started(planned, 1, t0 + 1s)));
  EXPECT_EQ(j->find(planned.key())->attempts, 1u);
  // Anything else is left to async_write, recorded by nothing here.
  EXPECT_FALSE(j->write_if_covered(finished(planned, 1, attempt_class::succeeded, 201)));
  EXPECT_EQ(j->find(planned.key())->attempts_finished, 0u);
  j->write(created(lone));  // not in the file yet: its start must wait
  EXPECT_FALSE(j->write_if_covered(started(lone, 1, t0 + 1s)));
  EXPECT_EQ(j->find(lone.key())->attempts, 0u);
  EXPECT_EQ(j->commits(), 1u);
  // The memory store has nothing to cover: it is durable on write.
  memory_intent_store memory;
  memory.write(created(planned));
  EXPECT_FALSE(memory.write_if_covered(started(planned, 1, t0 + 1s)));
}

TEST_F(sqlite_journal_unwaited_start_test, AnIntentReadBackByAResumeStartsWithoutACommit) {
  const auto order = orders::create(sample_order("u-resumed"));
  {
    auto j = open(without_timer());
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(order)));
  }
  auto j = open(without_timer());
  ASSERT_TRUE(j);
  const auto before = j->commits();
  EXPECT_FALSE(write_durable(*j, started(order, 1, t0 + 1s)));
  EXPECT_EQ(j->commits(), before);
}

TEST_F(sqlite_journal_unwaited_start_test, AStartOfAnIntentNotYetCommittedWaitsAndCarriesIt) {
  const auto order = orders::create(sample_order("u-new"));
  auto j = open(without_timer());
  ASSERT_TRUE(j);
  j->write(created(order));  // queued: the start is the intent's first durable point
  EXPECT_FALSE(write_durable(*j, started(order, 1, t0 + 1s)));
  EXPECT_EQ(j->commits(), 1u);
  EXPECT_EQ(j->counts().unresolved, 1u);  // in the file, maybe sent
}

TEST_F(sqlite_journal_unwaited_start_test, AStartAfterAnEndedSubmissionWaitsForItsCommit) {
  const auto order = orders::create(sample_order("u-ended"));
  auto j = open(without_timer());
  ASSERT_TRUE(j);
  ASSERT_FALSE(write_durable(*j, created(order)));
  ASSERT_FALSE(write_durable(*j, started(order, 1, t0 + 1s)));
  j->write(finished(order, 1, attempt_class::not_sent, 0, t0 + 2s));
  j->write(reported(order, outcome_kind::not_sent, 0, {}, t0 + 2s));
  ASSERT_EQ(j->commits(), 1u);
  // A second submission: its outcome may be in the file, which the recovery never rewrites, so
  // this start must be durable before it leaves.
  EXPECT_FALSE(write_durable(*j, started(order, 2, t0 + 3s)));
  EXPECT_EQ(j->commits(), 2u);
  EXPECT_EQ(j->counts().unresolved, 1u);
}

TEST_F(sqlite_journal_unwaited_start_test,
       AStartLostWithItsProcessReadsBackAsMaybeSentSinceCreated) {
  const auto order = orders::create(sample_order("u-killed"));
  // The start completed (the request could have left), the process died before any commit.
  ASSERT_EQ(die_after(order,
                      [&](sqlite_journal& j) {
                        const auto before = j.commits();
                        return !write_durable(j, started(order, 1, t0 + 5s)) &&
                               j.commits() == before;
                      }),
            0);
  const auto r = reopened(order);
  ASSERT_TRUE(r);
  EXPECT_EQ(r->state, intent_state::open);
  EXPECT_TRUE(r->maybe_sent());
  EXPECT_EQ(r->attempts, 1u);
  EXPECT_EQ(r->what.body(), order.body());
  // First sent no later than created: the key-retention rule looks up early, never late.
  EXPECT_EQ(r->first_attempt_at, r->created_at);
  auto j = open();
  const auto lines = j->timeline(order.key());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[1].what, timeline_entry::kind::attempt_started);
  EXPECT_EQ(lines[1].attempt, 1u);
  EXPECT_EQ(lines[1].at, t0 + 1h);  // the recovery's time (the fixture's clock)
  EXPECT_EQ(lines[1].detail, detail::unrecorded_start_detail);
  EXPECT_EQ(j->counts().unresolved, 1u);
  EXPECT_EQ(j->counts().not_sent, 0u);
}

TEST_F(sqlite_journal_unwaited_start_test, AReadOnlyLookAtACrashedJournalReadsItAsAWriterWould) {
  // `idem-cli journal` on the file of a dead process: it writes nothing, and still never shows
  // as not sent what may have left.
  const auto order = orders::create(sample_order("u-read-only"));
  ASSERT_EQ(
      die_after(order,
                [&](sqlite_journal& j) { return !write_durable(j, started(order, 1, t0 + 5s)); }),
      0);
  auto o = options();
  o.read_only = true;
  {
    auto j = open(o);
    ASSERT_TRUE(j);
    const auto r = j->find(order.key());
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->maybe_sent());
    EXPECT_EQ(r->first_attempt_at, r->created_at);
    ASSERT_EQ(j->open_intents().size(), 1u);
    EXPECT_TRUE(j->open_intents()[0].maybe_sent());
    EXPECT_EQ(j->counts().unresolved, 1u);
    EXPECT_EQ(j->counts().not_sent, 0u);
  }
  EXPECT_EQ(query_int(path(), "SELECT attempts FROM intents"), 0);  // the file is as it was
  // The writer's recovery then writes down what the reader showed.
  const auto recovered = reopened(order);
  ASSERT_TRUE(recovered);
  EXPECT_EQ(recovered->attempts, 1u);
  auto after = open(o);
  EXPECT_EQ(after->counts().unresolved, 1u);
}

TEST_F(sqlite_journal_unwaited_start_test, APlanKilledBeforeAnyStartReadsBackAsMaybeSent) {
  // Nothing tells "died before the start" from "died after an uncommitted start": maybe sent.
  const auto order = orders::create(sample_order("u-plan-killed"));
  ASSERT_EQ(die_after(order, [](sqlite_journal&) { return true; }), 0);
  const auto r = reopened(order);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->maybe_sent());
  EXPECT_EQ(r->attempts, 1u);
}

TEST_F(sqlite_journal_unwaited_start_test, APlanWhosePathWasNeverBoundStaysNotSent) {
  // A payment planned on an order that never succeeded: its path is a template in the file, and
  // the client writes the bound path (waited, with its start) before anything leaves. Nothing
  // of it can have left, so the recovery leaves it as it is (a resume may still abandon it).
  const auto order = orders::create(sample_order("u-plan-unbound"));
  const auto plan = orders::plan_payment(order, {.amount_minor = 1500, .currency = "EUR"});
  ASSERT_EQ(die_after(order,
                      [&](sqlite_journal& j) {
                        return !write_durable(j, events::created{.what = plan.draft(),
                                                                 .principal = "sha256:principal-a",
                                                                 .at = t0,
                                                                 .depends_on = plan.depends_on(),
                                                                 .path_bound = false});
                      }),
            0);
  auto j = open();
  ASSERT_TRUE(j);
  const auto r = j->find(plan.key());
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->maybe_sent());
  EXPECT_EQ(r->attempts, 0u);
  EXPECT_TRUE(j->find(order.key())->maybe_sent());  // the order was bound: maybe sent
}

TEST_F(sqlite_journal_unwaited_start_test, ARetryAfterAnAttemptThatNeverLeftIsCoveredToo) {
  // Attempt 1 provably never left and its end is in the file; attempt 2's start went
  // uncommitted: the file alone would say "not sent".
  const auto order = orders::create(sample_order("u-retry-killed"));
  ASSERT_EQ(die_after(order,
                      [&](sqlite_journal& j) {
                        return !write_durable(j, started(order, 1, t0 + 1s)) &&
                               (j.write(finished(order, 1, attempt_class::not_sent, 0, t0 + 2s)),
                                !flush(j)) &&
                               !write_durable(j, started(order, 2, t0 + 3s));
                      }),
            0);
  const auto r = reopened(order);
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->maybe_sent());
  EXPECT_EQ(r->attempts, 2u);
  EXPECT_EQ(r->attempts_finished, 1u);
}

TEST_F(sqlite_journal_unwaited_start_test, AnOutcomeInTheFileIsNeverRewrittenByTheRecovery) {
  const auto order = orders::create(sample_order("u-not-sent"));
  ASSERT_EQ(die_after(order,
                      [&](sqlite_journal& j) {
                        if (write_durable(j, started(order, 1, t0 + 1s))) return false;
                        j.write(finished(order, 1, attempt_class::not_sent, 0, t0 + 2s));
                        j.write(reported(order, outcome_kind::not_sent, 0, {}, t0 + 2s));
                        return !flush(j);
                      }),
            0);
  const auto r = reopened(order);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->maybe_sent());
  EXPECT_EQ(r->last_outcome, outcome_kind::not_sent);
  EXPECT_EQ(r->attempts, 1u);
}

TEST_F(sqlite_journal_unwaited_start_test, ACloseWhoseLastCommitFailedIsNotAClean) {
  // The disk fills while planned intents are sent: their starts (never waited for) cannot be
  // committed, not even by the close. A close that marked the file clean all the same would
  // leave them read back as never sent; it must leave the mark off, so the next open recovers.
  std::vector<intent> planned;
  std::vector<intent_event> plan;
  for (int i = 0; i < 40; ++i) {
    planned.push_back(
        intent::create({"POST", "/v1/orders"}, {{"n", i}, {"note", std::string(3000, 'n')}}));
    plan.emplace_back(created(planned.back()));
  }
  {
    auto j = open(without_timer());
    ASSERT_TRUE(j);
    auto slot = std::make_shared<std::optional<std::error_code>>();
    j->async_write_all(plan, io.get_executor(),
                       boost::asio::bind_executor(io, [slot](std::error_code ec) { *slot = ec; }));
    run_until([&] { return slot->has_value(); });
    ASSERT_EQ(*slot, std::error_code{});
  }
  auto o = without_timer();
  o.max_pages = static_cast<std::uint32_t>(query_int(path(), "PRAGMA page_count"));
  {
    auto j = open(o);
    ASSERT_TRUE(j);
    for (const auto& i : planned) {
      ASSERT_FALSE(write_durable(*j, started(i, 1, t0 + 1s)));  // completes: needs no commit
      // Each answer's body makes its row grow by a page: the file would have to grow.
      j->write(finished(i, 1, attempt_class::succeeded, 201, t0 + 2s));
      j->write(reported(i, outcome_kind::succeeded, 201, std::string(4096, 'b'), t0 + 2s));
    }
    ASSERT_EQ(flush(*j), journal_errc::full);  // what the close will meet too
  }
  auto j = open();
  ASSERT_TRUE(j);
  for (const auto& i : planned) {
    const auto r = j->find(i.key());
    ASSERT_TRUE(r);
    EXPECT_TRUE(r->maybe_sent()) << "a start that may have left reads as never sent";
  }
}

TEST_F(sqlite_journal_unwaited_start_test, ACleanCloseKeepsANeverStartedIntentNotSent) {
  const auto order = orders::create(sample_order("u-clean"));
  {
    auto j = open(without_timer());
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(order)));
  }
  const auto r = reopened(order);
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->maybe_sent());
  EXPECT_EQ(r->attempts, 0u);
  EXPECT_FALSE(r->first_attempt_at);
  // And a second clean open changes nothing either.
  const auto again = reopened(order);
  ASSERT_TRUE(again);
  EXPECT_FALSE(again->maybe_sent());
}

}  // namespace
}  // namespace idem::test::journal
