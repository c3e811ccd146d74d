// The default store: bounded. Open intents are kept whatever their age; final ones are
// forgotten after the retention window or past the count cap, oldest first (these tests keep no
// keys past that: key_retention 0). After that window the key alone is remembered (the last tests).

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

#include "idem/memory_intent_store.hpp"
#include "idem/orders.hpp"

namespace idem {
namespace {

using namespace std::chrono_literals;

const wall_time store_t0 = wall_time{} + std::chrono::hours(500'000);

intent order(int n) {
  return orders::create({.merchant_order_id = "m-" + std::to_string(n),
                         .customer_id = "c",
                         .currency = "EUR",
                         .amount_minor = 100,
                         .items = {{.sku = "s", .quantity = 1, .unit_price_minor = 100}}});
}

void finish(memory_intent_store& s, const intent& i, wall_time at) {
  s.write(
      events::outcome_reported{.key = i.key(),
                               .at = at,
                               .result = outcome(outcome_fields{.kind = outcome_kind::succeeded})});
}

TEST(MemoryIntentStore, KeepsAtMostMaxFinalFinishedIntentsOldestGoFirst) {
  memory_intent_store s({.retention = 24h, .max_final = 10, .key_retention = 0ms});
  std::vector<intent> all;
  for (int n = 0; n < 50; ++n) {
    all.push_back(order(n));
    s.write(events::created{.what = all.back(), .at = store_t0});
    finish(s, all.back(), store_t0 + std::chrono::seconds(n));
  }
  EXPECT_EQ(s.size(), 10u);
  EXPECT_FALSE(s.find(all[39].key()));
  EXPECT_TRUE(s.find(all[40].key()));
  EXPECT_TRUE(s.find(all[49].key()));
}

TEST(MemoryIntentStore, WithMaxFinalZeroAnIntentIsForgottenAsItEndsAndOpenOnesStay) {
  memory_intent_store s({.retention = 24h, .max_final = 0, .key_retention = 0ms});
  const intent open = order(1);
  const intent done = order(2);
  s.write(events::created{.what = open, .at = store_t0});
  s.write(events::created{.what = done, .at = store_t0});
  EXPECT_EQ(s.size(), 2u);
  finish(s, done, store_t0 + 1s);
  EXPECT_FALSE(s.find(done.key()));
  ASSERT_TRUE(s.find(open.key()));
  EXPECT_EQ(s.open_intents().size(), 1u);
  EXPECT_EQ(s.size(), 1u);
}

TEST(MemoryIntentStore, WithMaxFinalZeroOnlyWhatEndsAnIntentForgetsIt) {
  // apply()'s rules decide (an unresolved outcome leaves an intent open; an abandonment of
  // what may have been sent is ignored), though such a store skips applying the final event.
  memory_intent_store s({.retention = 24h, .max_final = 0, .key_retention = 0ms});
  const intent unresolved = order(1), rejected = order(2), sent = order(3), unsent = order(4);
  for (const intent& i : {unresolved, rejected, sent, unsent})
    s.write(events::created{.what = i, .at = store_t0});
  const auto report = [&](const intent& i, outcome_kind kind) {
    s.write(events::outcome_reported{
        .key = i.key(), .at = store_t0 + 1s, .result = outcome(outcome_fields{.kind = kind})});
  };
  report(unresolved, outcome_kind::unresolved);
  ASSERT_TRUE(s.find(unresolved.key()));
  EXPECT_TRUE(s.find(unresolved.key())->is_open());
  EXPECT_EQ(s.find(unresolved.key())->last_outcome, outcome_kind::unresolved);
  report(rejected, outcome_kind::rejected);
  EXPECT_FALSE(s.find(rejected.key()));
  s.write(events::attempt_started{.key = sent.key(), .number = 1, .at = store_t0});
  s.write(events::abandoned{.key = sent.key(), .at = store_t0 + 1s, .reason = "dependency"});
  ASSERT_TRUE(s.find(sent.key()));
  EXPECT_TRUE(s.find(sent.key())->is_open());
  s.write(events::abandoned{.key = unsent.key(), .at = store_t0 + 1s, .reason = "dependency"});
  EXPECT_FALSE(s.find(unsent.key()));
  // The unresolved one ends when its next outcome is final, and nothing else is left.
  report(unresolved, outcome_kind::succeeded);
  EXPECT_FALSE(s.find(unresolved.key()));
  EXPECT_EQ(s.size(), 1u);
  ASSERT_EQ(s.open_intents().size(), 1u);
  EXPECT_EQ(s.open_intents()[0].what.key(), sent.key());
}

// An attempt's end, the event the compact record applies in place, is in every read.
TEST(MemoryIntentStore, AnAttemptsEndIsInEveryRead) {
  // Each read on a store of its own, the first read after the end.
  const intent i = order(1);
  const auto ended = [&](std::size_t max_final) {
    auto s = std::make_unique<memory_intent_store>(
        memory_store_options{.retention = 24h, .max_final = max_final, .key_retention = 0ms});
    s->write(events::created{.what = i, .at = store_t0});
    s->write(events::attempt_started{.key = i.key(), .number = 1, .at = store_t0 + 1s});
    s->write(events::attempt_finished{.key = i.key(),
                                      .number = 1,
                                      .at = store_t0 + 2s,
                                      .cls = attempt_class::unknown,
                                      .status = 503,
                                      .request_id = "req-1",
                                      .took = 1000ms});
    return s;
  };
  for (const std::size_t max_final : {std::size_t{0}, std::size_t{10}}) {
    SCOPED_TRACE("max_final " + std::to_string(max_final));
    const auto record = ended(max_final)->find(i.key());
    ASSERT_TRUE(record);
    EXPECT_EQ(record->attempts_finished, 1u);
    EXPECT_EQ(record->last_class, attempt_class::unknown);
    EXPECT_TRUE(record->reached_server);

    const auto open = ended(max_final)->open_intents();
    ASSERT_EQ(open.size(), 1u);
    EXPECT_EQ(open[0].attempts_finished, 1u);
    EXPECT_TRUE(open[0].reached_server);

    const auto lines = ended(max_final)->timeline(i.key());
    ASSERT_EQ(lines.size(), 3u);
    EXPECT_EQ(lines[1].what, timeline_entry::kind::attempt_started);
    EXPECT_EQ(lines[2].what, timeline_entry::kind::attempt_finished);
    EXPECT_EQ(lines[2].status, 503);
    EXPECT_EQ(lines[2].request_id, "req-1");
    EXPECT_EQ(lines[2].duration, 1000ms);
  }
}

TEST(MemoryIntentStore, AnAttemptsEndFollowedByAnotherIntentsEventsStaysInItsTimeline) {
  memory_intent_store s({.retention = 24h, .max_final = 0, .key_retention = 0ms});
  const intent a = order(1), b = order(2);
  s.write(events::created{.what = a, .at = store_t0});
  s.write(events::attempt_started{.key = a.key(), .number = 1, .at = store_t0});
  s.write(events::attempt_finished{
      .key = a.key(), .number = 1, .at = store_t0 + 1s, .cls = attempt_class::unknown});
  s.write(events::created{.what = b, .at = store_t0 + 1s});
  finish(s, b, store_t0 + 2s);  // ends b, not a
  s.write(events::outcome_reported{
      .key = a.key(),
      .at = store_t0 + 3s,
      .result = outcome(outcome_fields{.kind = outcome_kind::unresolved})});
  const auto record = s.find(a.key());
  ASSERT_TRUE(record);
  EXPECT_TRUE(record->is_open());
  EXPECT_EQ(record->attempts_finished, 1u);
  const auto lines = s.timeline(a.key());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[2].what, timeline_entry::kind::attempt_finished);
  EXPECT_EQ(lines[3].what, timeline_entry::kind::outcome);
  EXPECT_FALSE(s.find(b.key()));
  EXPECT_EQ(s.size(), 1u);
}

TEST(MemoryIntentStore, AFinalOutcomeAfterAnAttemptsEndKeepsBothInAStoreThatKeepsFinals) {
  memory_intent_store s({.retention = 24h, .max_final = 10, .key_retention = 0ms});
  const intent i = order(1);
  s.write(events::created{.what = i, .at = store_t0});
  s.write(events::attempt_started{.key = i.key(), .number = 1, .at = store_t0});
  s.write(events::attempt_finished{.key = i.key(),
                                   .number = 1,
                                   .at = store_t0 + 1s,
                                   .cls = attempt_class::succeeded,
                                   .status = 201});
  finish(s, i, store_t0 + 1s);
  const auto record = s.find(i.key());
  ASSERT_TRUE(record);
  EXPECT_EQ(record->state, intent_state::succeeded);
  EXPECT_EQ(record->attempts_finished, 1u);
  EXPECT_EQ(record->last_class, attempt_class::succeeded);
  const auto lines = s.timeline(i.key());
  ASSERT_EQ(lines.size(), 4u);
  EXPECT_EQ(lines[2].what, timeline_entry::kind::attempt_finished);
  EXPECT_EQ(lines[3].what, timeline_entry::kind::outcome);
}

TEST(MemoryIntentStore, AnAbandonmentWeighsTheAttemptsEndBeforeIt) {
  // An end that reached the server makes the intent maybe sent, which no abandonment closes,
  // even when no start was recorded before it.
  memory_intent_store s({.retention = 24h, .max_final = 0, .key_retention = 0ms});
  const intent i = order(1);
  s.write(events::created{.what = i, .at = store_t0});
  s.write(events::attempt_finished{
      .key = i.key(), .number = 1, .at = store_t0 + 1s, .cls = attempt_class::unknown});
  s.write(events::abandoned{.key = i.key(), .at = store_t0 + 2s, .reason = "dependency"});
  const auto record = s.find(i.key());
  ASSERT_TRUE(record);
  EXPECT_TRUE(record->is_open());
  EXPECT_TRUE(record->reached_server);
}

TEST(MemoryIntentStore, ForgetsFinishedIntentsAfterTheRetentionWindowNeverOpenOnes) {
  memory_intent_store s({.retention = 1h, .max_final = 1000, .key_retention = 0ms});
  const auto open = order(0), done = order(1), later = order(2);
  s.write(events::created{.what = open, .at = store_t0});
  s.write(events::created{.what = done, .at = store_t0});
  finish(s, done, store_t0);
  s.write(events::created{.what = later, .at = store_t0});
  finish(s, later, store_t0 + 2h);  // time moves on: `done` is past its window
  EXPECT_FALSE(s.find(done.key()));
  EXPECT_TRUE(s.find(later.key()));
  ASSERT_TRUE(s.find(open.key()));
  ASSERT_EQ(s.open_intents().size(), 1u);
  EXPECT_EQ(s.open_intents()[0].what.key(), open.key());
}

TEST(MemoryIntentStore, OpenIntentsComeOldestFirstAndLeaveWhenFinal) {
  memory_intent_store s;
  std::vector<intent> all;
  for (int n = 0; n < 5; ++n) {
    all.push_back(order(n));
    s.write(events::created{.what = all.back(), .at = store_t0});
  }
  finish(s, all[2], store_t0);
  const auto open = s.open_intents();
  ASSERT_EQ(open.size(), 4u);
  EXPECT_EQ(open[0].what.key(), all[0].key());
  EXPECT_EQ(open[1].what.key(), all[1].key());
  EXPECT_EQ(open[2].what.key(), all[3].key());
  EXPECT_EQ(open[3].what.key(), all[4].key());
}

// The lists of open and of final intents refer to the table's own keys: they must still hold
// after the table has grown (rehashed) many times, and after others were forgotten.
TEST(MemoryIntentStore, OpenAndFinalListsHoldWhileTheTableGrowsAndShrinks) {
  memory_intent_store s({.retention = 24h, .max_final = 100, .key_retention = 0ms});
  std::vector<intent> all;
  for (int n = 0; n < 2000; ++n) {
    all.push_back(order(n));
    s.write(events::created{.what = all.back(), .at = store_t0});
    if (n % 2 == 1) finish(s, all.back(), store_t0 + std::chrono::seconds(n));
  }
  EXPECT_EQ(s.size(), 1000u + 100u);
  const auto open = s.open_intents();
  ASSERT_EQ(open.size(), 1000u);
  for (std::size_t i = 0; i < open.size(); ++i)
    EXPECT_EQ(open[i].what.key(), all[2 * i].key()) << i;
  EXPECT_FALSE(s.find(all[1799].key()));  // final, past the newest 100
  EXPECT_TRUE(s.find(all[1801].key()));
  // Every open one ends: the oldest finals go as the newest come.
  for (int n = 0; n < 2000; n += 2)
    finish(s, all[n], store_t0 + std::chrono::seconds(2000 + n));
  EXPECT_TRUE(s.open_intents().empty());
  EXPECT_EQ(s.size(), 100u);
  EXPECT_TRUE(s.find(all[1998].key()));
  EXPECT_FALSE(s.find(all[1799].key()));
}

TEST(MemoryIntentStore, EventsForUnknownKeysAreIgnoredAndACreatedTwiceChangesNothing) {
  memory_intent_store s;
  const auto i = order(0);
  s.write(events::attempt_started{.key = i.key(), .number = 1, .at = store_t0});
  EXPECT_FALSE(s.find(i.key()));
  s.write(events::created{.what = i, .principal = "p1", .at = store_t0});
  s.write(events::created{.what = i, .principal = "p2", .at = store_t0});
  EXPECT_EQ(s.find(i.key())->principal, "p1");
  EXPECT_EQ(s.size(), 1u);
}

// The store makes the created line from the intent as created when asked, rather than keep
// it: these pin its content and where the cap drops it.
TEST(MemoryIntentStore, TimelineBeginsWithTheCreatedLineUntilTheCapDropsIt) {
  memory_intent_store s({.max_timeline = 3});
  const auto i = order(0);
  s.write(events::created{.what = i, .at = store_t0});
  s.write(events::attempt_started{.key = i.key(), .number = 1, .at = store_t0 + 1s});
  auto lines = s.timeline(i.key());
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(lines[0].what, timeline_entry::kind::created);
  EXPECT_EQ(lines[0].at, store_t0);
  EXPECT_EQ(lines[0].detail, "POST /v1/orders");
  EXPECT_EQ(lines[1].what, timeline_entry::kind::attempt_started);

  s.write(events::attempt_finished{.key = i.key(), .number = 1, .cls = attempt_class::unknown});
  EXPECT_EQ(s.timeline(i.key()).front().what, timeline_entry::kind::created);
  s.write(events::attempt_started{.key = i.key(), .number = 2, .at = store_t0 + 2s});
  lines = s.timeline(i.key());
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0].what, timeline_entry::kind::attempt_started);
  EXPECT_EQ(lines[0].attempt, 1u);
  EXPECT_EQ(lines[1].what, timeline_entry::kind::attempt_finished);
  EXPECT_EQ(lines[2].attempt, 2u);
}

// An attempt in flight is the last line of its intent; the store keeps that line apart until
// the attempt ends. These pin the lines at each cap, with the start last and after it.
TEST(MemoryIntentStore, AnAttemptInFlightIsTheLastLineAtEveryCap) {
  using kind = timeline_entry::kind;
  struct step {
    intent_event event;
    std::vector<kind> uncapped;  // every line after this event, oldest first
  };
  const auto i = order(0);
  const std::vector<step> steps = {
      {events::created{.what = i, .at = store_t0}, {kind::created}},
      {events::attempt_started{.key = i.key(), .number = 1, .at = store_t0 + 1s},
       {kind::created, kind::attempt_started}},
      {events::attempt_finished{.key = i.key(), .number = 1, .cls = attempt_class::unknown},
       {kind::created, kind::attempt_started, kind::attempt_finished}},
      {events::attempt_started{.key = i.key(), .number = 2, .at = store_t0 + 2s},
       {kind::created, kind::attempt_started, kind::attempt_finished, kind::attempt_started}},
      {events::outcome_reported{
           .key = i.key(),
           .at = store_t0 + 3s,
           .result = outcome(outcome_fields{.kind = outcome_kind::unresolved})},
       {kind::created, kind::attempt_started, kind::attempt_finished, kind::attempt_started,
        kind::outcome}},
  };
  for (std::size_t cap = 0; cap <= 6; ++cap) {
    memory_intent_store s({.max_timeline = cap});
    for (std::size_t n = 0; n < steps.size(); ++n) {
      s.write(steps[n].event);
      const auto& all = steps[n].uncapped;
      const std::vector<kind> want(
          all.end() - static_cast<std::ptrdiff_t>(std::min(cap, all.size())), all.end());
      std::vector<kind> got;
      for (const auto& line : s.timeline(i.key()))
        got.push_back(line.what);
      EXPECT_EQ(got, want) << "cap " << cap << ", after event " << n;
    }
    const auto lines = s.timeline(i.key());
    if (cap >= 2) {  // the second attempt's start, kept apart until the outcome came
      const auto& second = lines[lines.size() - 2];
      EXPECT_EQ(second.what, kind::attempt_started);
      EXPECT_EQ(second.attempt, 2u);
      EXPECT_EQ(second.at, store_t0 + 2s);
    }
    EXPECT_EQ(s.find(i.key())->attempts, 2u);
  }
}

TEST(MemoryIntentStore, WithMaxTimelineZeroThereAreNoLinesAndTheRecordStaysExact) {
  memory_intent_store s({.max_timeline = 0});
  const auto i = order(0);
  s.write(events::created{.what = i, .at = store_t0});
  s.write(events::attempt_started{.key = i.key(), .number = 1, .at = store_t0});
  EXPECT_TRUE(s.timeline(i.key()).empty());
  EXPECT_EQ(s.find(i.key())->attempts, 1u);
}

// Entries of one principal share one copy of it; each record still reads back its own.
TEST(MemoryIntentStore, EachRecordKeepsItsOwnPrincipal) {
  memory_intent_store s;
  const std::string principals[] = {"p1", "p1", "p2", "p1", "p3", "p3"};
  std::vector<intent> all;
  for (const auto& p : principals) {
    all.push_back(order(static_cast<int>(all.size())));
    s.write(events::created{.what = all.back(), .principal = p, .at = store_t0});
  }
  for (std::size_t n = 0; n < all.size(); ++n) {
    EXPECT_EQ(s.find(all[n].key())->principal, principals[n]) << n;
  }
  const auto open = s.open_intents();
  ASSERT_EQ(open.size(), all.size());
  for (std::size_t n = 0; n < open.size(); ++n) {
    EXPECT_EQ(open[n].principal, principals[n]) << n;
  }
}

TEST(MemoryIntentStore, TimelineIsCappedButTheRecordStaysExact) {
  memory_intent_store s({.max_timeline = 4});
  const auto i = order(0);
  s.write(events::created{.what = i, .at = store_t0});
  for (std::uint32_t n = 1; n <= 10; ++n) {
    s.write(events::attempt_started{.key = i.key(), .number = n, .at = store_t0});
    s.write(events::attempt_finished{.key = i.key(), .number = n, .cls = attempt_class::unknown});
  }
  EXPECT_EQ(s.timeline(i.key()).size(), 4u);
  EXPECT_EQ(s.timeline(i.key()).back().attempt, 10u);
  EXPECT_EQ(s.find(i.key())->attempts, 10u);
  EXPECT_EQ(s.find(i.key())->attempts_finished, 10u);
}

// ---- the key-retention rule (contract section 8): a final intent's key outlives its details ----

void sent_and_finished(memory_intent_store& s, const intent& i, wall_time at) {
  s.write(events::created{.what = i, .principal = "p1", .at = at});
  s.write(events::attempt_started{.key = i.key(), .number = 1, .at = at});
  s.write(events::attempt_finished{
      .key = i.key(), .number = 1, .at = at, .cls = attempt_class::succeeded, .status = 201});
  finish(s, i, at);
}

TEST(MemoryIntentStore, AFinalIntentsKeyIsRememberedPastItsDetailsForTheKeyRetention) {
  memory_intent_store s({.retention = 1h, .max_final = 1000, .key_retention = 48h});
  const auto done = order(1), other = order(2), later = order(3);
  sent_and_finished(s, done, store_t0);
  sent_and_finished(s, other, store_t0 + 25h);  // time moves on: `done` is past its window
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.remembered(), 1u);
  const auto r = s.find(done.key());
  ASSERT_TRUE(r.has_value()) << "a key the server may still hold was forgotten";
  EXPECT_TRUE(r->details_forgotten);
  EXPECT_EQ(r->state, intent_state::succeeded);
  EXPECT_EQ(r->principal, "p1");
  EXPECT_EQ(r->first_attempt_at, store_t0);
  EXPECT_TRUE(r->maybe_sent());
  EXPECT_EQ(r->what.key(), done.key());
  EXPECT_TRUE(r->final_body.empty());
  EXPECT_NE(r->request_digest, 0u);
  // Past the key retention it goes too.
  sent_and_finished(s, later, store_t0 + 49h);
  EXPECT_FALSE(s.find(done.key()));
}

TEST(MemoryIntentStore, RememberedKeysAreBoundedOldestFirst) {
  memory_intent_store s(
      {.retention = 1h, .max_final = 1, .key_retention = 48h, .max_remembered = 3});
  std::vector<intent> all;
  for (int n = 0; n < 10; ++n) {
    all.push_back(order(n));
    sent_and_finished(s, all.back(), store_t0 + std::chrono::minutes(n));
  }
  EXPECT_EQ(s.size(), 1u);
  EXPECT_EQ(s.remembered(), 3u);
  EXPECT_FALSE(s.find(all[5].key()));
  EXPECT_TRUE(s.find(all[6].key()));
  EXPECT_TRUE(s.find(all[8].key())->details_forgotten);
  EXPECT_FALSE(s.find(all[9].key())->details_forgotten);
}

TEST(MemoryIntentStore, AStoreThatKeepsNoFinalsStillRemembersTheirKeys) {
  memory_intent_store s({.retention = 24h, .max_final = 0});
  const auto done = order(1);
  sent_and_finished(s, done, store_t0);
  EXPECT_EQ(s.size(), 0u);
  ASSERT_TRUE(s.find(done.key()));
  EXPECT_TRUE(s.find(done.key())->details_forgotten);
}

}  // namespace
}  // namespace idem
