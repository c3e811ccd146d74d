// An outcome explains itself: a reason (idem::errc, category "idem") on every outcome that is
// not a plain success, zero attempts included, and the words idem-cli prints (explain,
// describe, operator<<).
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "idem/outcome.hpp"
#include "idem/transport_error.hpp"

namespace idem {
namespace {

TEST(OutcomeReason, TheCategoryIsIdemAndEachValueHasOneName) {
  const std::error_code ec = errc::duplicate_business_id;
  EXPECT_EQ(std::string(ec.category().name()), "idem");
  EXPECT_EQ(to_string(errc::duplicate_business_id), "duplicate-business-id");
  EXPECT_EQ(to_string(errc::deadline_too_short), "deadline-too-short");
  EXPECT_EQ(ec.message(), "another intent owns this business ID");
  EXPECT_EQ(std::error_code(errc::attempt_timed_out), std::errc::timed_out);
  EXPECT_EQ(std::error_code(errc::cancelled), std::errc::operation_canceled);
}

TEST(OutcomeReason, ASuccessHasNoneUnlessTheBackendExecutedItTwice) {
  const outcome ok(outcome_fields{.kind = outcome_kind::succeeded, .status = 201, .attempts = 1});
  EXPECT_FALSE(ok.reason());
  const outcome twice(outcome_fields{.kind = outcome_kind::succeeded,
                                     .status = 200,
                                     .recovered_by_lookup = true,
                                     .matching_records = 2,
                                     .attempts = 2});
  EXPECT_EQ(twice.reason(), errc::duplicates_found);
}

// Issue 42: a zero-attempt outcome carried error_code{}, which prints "Success".
TEST(OutcomeReason, AnOutcomeWithNothingKnownStillHasAReason) {
  EXPECT_EQ(outcome{}.reason(), errc::no_answer);
  const outcome zero(outcome_fields{.kind = outcome_kind::not_sent});
  EXPECT_TRUE(zero.reason());
  EXPECT_NE(zero.reason().message(), "Success");
}

TEST(OutcomeReason, WithoutOneSetItFollowsFromTheFields) {
  auto reason_of = [](outcome_fields f) { return outcome(std::move(f)).reason(); };
  EXPECT_EQ(reason_of({.kind = outcome_kind::rejected, .error = "idempotency-key-mismatch"}),
            errc::idempotency_key_mismatch);
  EXPECT_EQ(reason_of({.kind = outcome_kind::rejected,
                       .status = 409,
                       .problem_type = "https://example.com/problems/invalid-state-transition"}),
            errc::invalid_state);
  EXPECT_EQ(reason_of({.kind = outcome_kind::rejected, .status = 422}), errc::rejected);
  EXPECT_EQ(reason_of({.kind = outcome_kind::unresolved, .status = 503}), errc::server_error);
  EXPECT_EQ(reason_of({.kind = outcome_kind::unresolved, .status = 429}), errc::rate_limited);
  EXPECT_EQ(reason_of({.kind = outcome_kind::not_sent,
                       .last_transport_error = transport_errc::resolve_failed}),
            errc::dns_failed);
  EXPECT_EQ(reason_of({.kind = outcome_kind::unresolved,
                       .last_transport_error = transport_errc::timed_out}),
            errc::attempt_timed_out);
  EXPECT_EQ(reason_of({.kind = outcome_kind::not_sent,
                       .last_transport_error = transport_errc::certificate_rejected}),
            errc::certificate_rejected);
  EXPECT_EQ(reason_of({.kind = outcome_kind::unresolved,
                       .last_transport_error = transport_errc::timed_out,
                       .reason = errc::lookup_found_nothing}),
            errc::lookup_found_nothing);
  EXPECT_EQ(reason_of({.kind = outcome_kind::not_sent, .error = "journal-unavailable"}),
            errc::journal_unavailable);
}

TEST(OutcomeWords, AnAnswerIsItsStatusInWordsAndTheStartOfItsBody) {
  const outcome conflict(outcome_fields{
      .kind = outcome_kind::rejected, .status = 409, .body = "{\"a\":\n\"b\"}", .attempts = 1});
  EXPECT_EQ(conflict.explain(), "HTTP 409 Conflict: {\"a\": \"b\"}");
  EXPECT_EQ(conflict.explain(0), "HTTP 409 Conflict");
  EXPECT_EQ(conflict.explain(3), "HTTP 409 Conflict: {\"a...");
  const outcome odd(outcome_fields{.kind = outcome_kind::unresolved, .status = 599});
  EXPECT_EQ(odd.explain(), "HTTP 599");
  EXPECT_EQ(outcome{}.explain(), "no answer");
  const outcome too_short(
      outcome_fields{.kind = outcome_kind::not_sent, .reason = errc::deadline_too_short});
  EXPECT_EQ(too_short.explain(), "the deadline leaves no time for an attempt");
}

// Issue 44, item 3: what the lookup got is said apart from what the writes got.
TEST(OutcomeWords, ExplainLookupSaysWhatTheLookupGotOnlyWhenItDecided) {
  const outcome not_found(outcome_fields{.kind = outcome_kind::unresolved,
                                         .status = 409,
                                         .lookup_status = 404,
                                         .reason = errc::lookup_found_nothing});
  EXPECT_EQ(not_found.explain_lookup("http://h/v1/orders?merchant_order_id=m-1"),
            "the lookup found no record of it (HTTP 404 Not Found at "
            "http://h/v1/orders?merchant_order_id=m-1)");
  EXPECT_EQ(not_found.explain(0), "HTTP 409 Conflict");  // the writes' answer, as before
  const outcome timed_out(outcome_fields{.kind = outcome_kind::unresolved,
                                         .lookup_transport_error = transport_errc::timed_out,
                                         .reason = errc::lookup_unanswered});
  EXPECT_EQ(timed_out.explain_lookup(),
            "no lookup answered within the deadline (the attempt timed out)");
  // Decided by the writes: nothing about a lookup, whatever it got.
  const outcome rejected(
      outcome_fields{.kind = outcome_kind::rejected, .status = 400, .lookup_status = 404});
  EXPECT_EQ(rejected.explain_lookup("http://h/x"), "");
}

TEST(OutcomeWords, DescribeSaysKindStatusAttemptsAndReason) {
  EXPECT_EQ(outcome(outcome_fields{.kind = outcome_kind::succeeded, .status = 201, .attempts = 1})
                .describe(),
            "succeeded, HTTP 201 Created, 1 attempt");
  const outcome timed_out(outcome_fields{.kind = outcome_kind::unresolved,
                                         .attempts = 3,
                                         .last_transport_error = transport_errc::timed_out,
                                         .reason = errc::lookup_found_nothing});
  EXPECT_EQ(timed_out.describe(),
            "unresolved, 3 attempts: lookup-found-nothing: the lookup found no record of it; last "
            "transport error: the attempt timed out");
  std::ostringstream os;
  os << timed_out;
  EXPECT_EQ(os.str(), timed_out.describe());
  EXPECT_EQ(outcome{}.describe(), "unresolved, 0 attempts: no-answer: no answer");
}

}  // namespace
}  // namespace idem
