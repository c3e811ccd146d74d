// The memory store keeps records compact (src/store/compact_intent_record.hpp): after every event
// of an intent's life, what it gives back is the record idem::apply makes of the same events.

#include "store/compact_intent_record.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "idem/orders.hpp"

namespace idem::detail {
namespace {

using namespace std::chrono_literals;

const wall_time compact_t0 = wall_time{} + std::chrono::hours(500'000);

void expect_same(const intent_record& got, const intent_record& want, std::size_t step) {
  SCOPED_TRACE("after event " + std::to_string(step));
  EXPECT_TRUE(got.what.same_request(want.what));
  EXPECT_EQ(got.principal, want.principal);
  EXPECT_EQ(got.created_at, want.created_at);
  EXPECT_EQ(got.first_attempt_at, want.first_attempt_at);
  EXPECT_EQ(got.finished_at, want.finished_at);
  EXPECT_EQ(got.depends_on, want.depends_on);
  EXPECT_EQ(got.path_bound, want.path_bound);
  EXPECT_EQ(got.attempts, want.attempts);
  EXPECT_EQ(got.attempts_finished, want.attempts_finished);
  EXPECT_EQ(got.last_class, want.last_class);
  EXPECT_EQ(got.reached_server, want.reached_server);
  EXPECT_EQ(got.state, want.state);
  EXPECT_EQ(got.last_outcome, want.last_outcome);
  EXPECT_EQ(got.final_status, want.final_status);
  EXPECT_EQ(got.final_body, want.final_body);
  EXPECT_EQ(got.error, want.error);
}

// Applies `events` after `created` to a full record and to a compact one, comparing each step.
void replay(const events::created& created, const std::vector<intent_event>& later) {
  intent_record full = make_record(created);
  compact_intent_record compact(make_record(created));
  expect_same(compact.expand(created.principal), full, 0);
  for (std::size_t k = 0; k < later.size(); ++k) {
    apply(full, later[k]);
    compact.apply(later[k]);
    expect_same(compact.expand(created.principal), full, k + 1);
    EXPECT_EQ(compact.is_open(), full.is_open());
    EXPECT_EQ(compact.finished_at(), full.finished_at);
  }
}

intent sample() {
  return orders::create({.merchant_order_id = "m-1",
                         .customer_id = "c",
                         .currency = "EUR",
                         .amount_minor = 100,
                         .items = {{.sku = "s", .quantity = 1, .unit_price_minor = 100}}});
}

TEST(CompactIntentRecord, APlannedIntentThatSucceedsAfterARetry) {
  const intent i = sample();
  const auto& k = i.key();
  replay(events::created{.what = i,
                         .principal = "fingerprint",
                         .at = compact_t0,
                         .depends_on = "key-of-the-order",
                         .path_bound = false},
         {events::path_bound{.key = k,
                             .op = {.path = "/v1/orders/ord_1/payments"},
                             .lookup = {},
                             .at = compact_t0 + 1s},
          events::attempt_started{.key = k, .number = 1, .at = compact_t0 + 2s},
          events::attempt_finished{
              .key = k, .number = 1, .at = compact_t0 + 3s, .cls = attempt_class::unknown},
          events::waited{.key = k, .at = compact_t0 + 3s, .delay = 200ms},
          events::attempt_started{.key = k, .number = 2, .at = compact_t0 + 4s},
          events::attempt_finished{.key = k,
                                   .number = 2,
                                   .at = compact_t0 + 5s,
                                   .cls = attempt_class::succeeded,
                                   .status = 201},
          events::outcome_reported{
              .key = k,
              .at = compact_t0 + 6s,
              .result = outcome(outcome_fields{
                  .kind = outcome_kind::succeeded, .status = 201, .body = R"({"id":"pay_1"})"})}});
}

TEST(CompactIntentRecord, AClientBugIsKeptWithTheRejection) {
  const intent i = sample();
  const auto& k = i.key();
  replay(events::created{.what = i, .principal = "fingerprint", .at = compact_t0},
         {events::attempt_started{.key = k, .number = 1, .at = compact_t0 + 1s},
          events::attempt_finished{.key = k,
                                   .number = 1,
                                   .at = compact_t0 + 2s,
                                   .cls = attempt_class::rejected,
                                   .status = 422},
          events::outcome_reported{
              .key = k,
              .at = compact_t0 + 3s,
              .result = outcome(outcome_fields{.kind = outcome_kind::rejected,
                                               .status = 422,
                                               .body = "problem",
                                               .error = "idempotency-key-mismatch"})}});
}

TEST(CompactIntentRecord, AnUnresolvedIntentStaysOpenAndAnAbandonedPlanEnds) {
  const intent i = sample();
  const auto& k = i.key();
  replay(events::created{.what = i, .at = compact_t0, .depends_on = "other", .path_bound = false},
         {events::outcome_reported{
              .key = k,
              .at = compact_t0 + 1s,
              .result = outcome(outcome_fields{.kind = outcome_kind::unresolved})},
          events::lookup_finished{
              .key = k, .at = compact_t0 + 2s, .verdict = "not_found", .status = 200},
          events::abandoned{.key = k, .at = compact_t0 + 3s, .reason = "prerequisite rejected"}});
}

}  // namespace
}  // namespace idem::detail
