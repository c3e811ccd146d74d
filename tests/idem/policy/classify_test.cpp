#include "idem/classify.hpp"

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace idem {
namespace {

// A complete HTTP response with an optional problem+json name in the contract's namespace.
attempt_facts response(int status, std::string_view problem = {}) {
  attempt_facts f;
  f.status = status;
  if (!problem.empty()) f.problem_type = "https://idem.example/problems/" + std::string{problem};
  return f;
}

attempt_facts transport_facts(transport_failure failure) {
  attempt_facts f;
  f.failure = failure;
  return f;
}

std::string describe(const attempt_facts& f) {
  return std::to_string(f.status) + " " + f.problem_type;
}

// What the caller does next, as the contract's "next step" column says it.
void expect_row(const attempt_facts& f, attempt_class expected, bool retry_same_key) {
  const attempt_class c = classify(f);
  EXPECT_EQ(c, expected) << describe(f) << " -> " << to_string(c);
  EXPECT_EQ(is_retryable(c), retry_same_key) << describe(f);
}

// ---------------------------------------------------------------------------------------------
// The contract's section-8 table, one TEST per row, every status the row names.

TEST(ClassifyTable, Row1_2xxSucceededAndIsDone) {
  for (int status : {200, 201, 202, 203, 204, 206, 299}) {
    expect_row(response(status), attempt_class::succeeded, false);
  }
}

TEST(ClassifyTable, Row2_ConnectFailureOnANewConnectionIsNotSentAndRetriedWithTheSameKey) {
  // Refused, DNS, connect timeout and TLS handshake failures all reach classify as not_sent.
  expect_row(transport_facts(transport_failure::not_sent), attempt_class::not_sent, true);
  EXPECT_FALSE(may_have_executed(attempt_class::not_sent));
}

TEST(ClassifyTable, Row3_FailureAfterTheRequestMayHaveLeftIsUnknownAndRetriedWithTheSameKey) {
  // Timeout after sending, reset, empty or truncated reply, any failure on a reused connection.
  expect_row(transport_facts(transport_failure::unknown), attempt_class::unknown, true);
  EXPECT_TRUE(may_have_executed(attempt_class::unknown));
}

TEST(ClassifyTable, Row4_5xx408And3xxAreUnknownAndRetriedWithTheSameKey) {
  for (int status : {500, 502, 503, 504, 408, 501, 505, 507, 511, 599}) {
    expect_row(response(status), attempt_class::unknown, true);
  }
  for (int status : {300, 301, 302, 303, 304, 307, 308, 399}) {
    expect_row(response(status), attempt_class::unknown, true);
  }
  // The problem types the mock server sends with them change nothing.
  expect_row(response(500, "internal"), attempt_class::unknown, true);
  expect_row(response(503, "unavailable"), attempt_class::unknown, true);
  expect_row(response(504, "unavailable"), attempt_class::unknown, true);
}

TEST(ClassifyTable, Row5_429IsNotProcessedAndRetriedWithTheSameKey) {
  expect_row(response(429), attempt_class::not_processed, true);
  expect_row(response(429, "rate-limited"), attempt_class::not_processed, true);
  EXPECT_FALSE(may_have_executed(attempt_class::not_processed));
}

TEST(ClassifyTable, Row6_409InProgressIsWaitedOutAndRetriedWithTheSameKey) {
  expect_row(response(409, "idempotency-request-in-progress"), attempt_class::in_progress, true);
}

TEST(ClassifyTable, Row7_422KeyMismatchIsAClientBugAndFinal) {
  expect_row(response(422, "idempotency-key-mismatch"), attempt_class::client_bug, false);
  EXPECT_FALSE(may_have_executed(attempt_class::client_bug));
}

TEST(ClassifyTable, Row8_OtherClientErrorsAreRejectedAndFinal) {
  const std::vector<std::pair<int, std::string_view>> cases{
      {400, "validation-failed"},
      {400, "idempotency-key-missing"},
      {400, "idempotency-key-invalid"},
      {400, ""},
      {401, "unauthenticated"},
      {402, "payment-declined"},
      {403, ""},
      {404, "not-found"},
      {405, "method-not-allowed"},
      {409, "invalid-state-transition"},  // a business conflict other than the business ID
      {410, ""},
      {413, "payload-too-large"},
      {415, ""},
      {422, "validation-failed"},
      {422, ""},
      {451, ""},
      {499, ""},
  };
  for (const auto& [status, problem] : cases) {
    expect_row(response(status, problem), attempt_class::rejected, false);
  }
  EXPECT_FALSE(may_have_executed(attempt_class::rejected));
}

TEST(ClassifyTable, A409Or425WithoutAKnownProblemIsInProgressNeverRejected) {
  // Many servers say "the first request with this key is still running" with a bare 409 (or
  // 425): reporting that as rejected would tell the user to order again.
  for (std::string_view problem : {"", "about:blank", "conflict", "idempotency_key_in_use"}) {
    expect_row(response(409, problem), attempt_class::in_progress, true);
  }
  expect_row(response(425), attempt_class::in_progress, true);
}

TEST(ClassifyTable, DuplicateBusinessIdIsABusinessConflictSettledByLookupNotByResending) {
  // The note under the table: rejected unless an earlier attempt may have executed, and then
  // the lookup decides. Either way the same request is not sent again.
  expect_row(response(409, "duplicate-business-id"), attempt_class::business_conflict, false);
  EXPECT_FALSE(may_have_executed(attempt_class::business_conflict));
}

// ---------------------------------------------------------------------------------------------
// Around the table

TEST(Classify, EveryStatusFrom100To599WithoutAProblemFollowsTheTable) {
  for (int status = 100; status <= 599; ++status) {
    attempt_class expected = attempt_class::unknown;  // 1xx, 3xx, 408, 5xx
    if (status >= 200 && status <= 299) {
      expected = attempt_class::succeeded;
    } else if (status == 429) {
      expected = attempt_class::not_processed;
    } else if (status == 409 || status == 425) {
      expected = attempt_class::in_progress;
    } else if (status >= 400 && status <= 499 && status != 408) {
      expected = attempt_class::rejected;
    }
    EXPECT_EQ(classify(response(status)), expected) << status;
  }
}

TEST(Classify, StatusesOutsideTheTableAreUnknownBecauseSomethingAnswered) {
  for (int status : {0, -1, 100, 101, 199, 600, 999}) {
    EXPECT_EQ(classify(response(status)), attempt_class::unknown) << status;
  }
}

TEST(Classify, TransportFailureOverridesALeftoverStatus) {
  attempt_facts f = response(201);
  f.failure = transport_failure::not_sent;
  EXPECT_EQ(classify(f), attempt_class::not_sent);
  f.failure = transport_failure::unknown;
  EXPECT_EQ(classify(f), attempt_class::unknown);
  f = response(409, "idempotency-request-in-progress");
  f.failure = transport_failure::unknown;
  EXPECT_EQ(classify(f), attempt_class::unknown);
}

TEST(Classify, ProblemTypeMattersOnlyWithItsStatus) {
  EXPECT_EQ(classify(response(400, "idempotency-request-in-progress")), attempt_class::rejected);
  EXPECT_EQ(classify(response(422, "idempotency-request-in-progress")), attempt_class::rejected);
  EXPECT_EQ(classify(response(409, "idempotency-key-mismatch")), attempt_class::in_progress);
  EXPECT_EQ(classify(response(422, "duplicate-business-id")), attempt_class::rejected);
  EXPECT_EQ(classify(response(500, "duplicate-business-id")), attempt_class::unknown);
  EXPECT_EQ(classify(response(201, "idempotency-key-mismatch")), attempt_class::succeeded);
  EXPECT_EQ(classify(response(429, "idempotency-request-in-progress")),
            attempt_class::not_processed);
}

TEST(Classify, ProblemTypesAreMatchedByNameUnderAnyBase) {
  attempt_facts f = response(409);
  f.problem_type = "https://other.example/errors/v2/idempotency-request-in-progress";
  EXPECT_EQ(classify(f), attempt_class::in_progress);
  f.problem_type = "idempotency-request-in-progress";
  EXPECT_EQ(classify(f), attempt_class::in_progress);
  f.problem_type = "/problems/duplicate-business-id";
  EXPECT_EQ(classify(f), attempt_class::business_conflict);
}

TEST(Classify, ProblemNamesAreCaseSensitive) {
  EXPECT_EQ(classify(response(409, "Duplicate-Business-Id")), attempt_class::in_progress);
  EXPECT_EQ(classify(response(422, "IDEMPOTENCY-KEY-MISMATCH")), attempt_class::rejected);
}

TEST(Classify, ANameThatMerelyEndsLikeAKnownOneIsNotIt) {
  EXPECT_EQ(classify(response(409, "not-duplicate-business-id")), attempt_class::in_progress);
  EXPECT_EQ(classify(response(409, "duplicate-business-id-v2")), attempt_class::in_progress);
  EXPECT_EQ(classify(response(422, "not-idempotency-key-mismatch")), attempt_class::rejected);
}

TEST(Classify, OnlyRetryableClassesResendTheSameKey) {
  EXPECT_TRUE(is_retryable(attempt_class::not_sent));
  EXPECT_TRUE(is_retryable(attempt_class::unknown));
  EXPECT_TRUE(is_retryable(attempt_class::not_processed));
  EXPECT_TRUE(is_retryable(attempt_class::in_progress));
  EXPECT_FALSE(is_retryable(attempt_class::succeeded));
  EXPECT_FALSE(is_retryable(attempt_class::client_bug));
  EXPECT_FALSE(is_retryable(attempt_class::business_conflict));
  EXPECT_FALSE(is_retryable(attempt_class::rejected));
}

TEST(Classify, MayHaveExecutedWhereverTheServerMightHaveActedOnOurKey) {
  EXPECT_TRUE(may_have_executed(attempt_class::succeeded));
  EXPECT_TRUE(may_have_executed(attempt_class::unknown));
  // A PROCESSING record under our key means one of our attempts is executing.
  EXPECT_TRUE(may_have_executed(attempt_class::in_progress));
  EXPECT_FALSE(may_have_executed(attempt_class::not_sent));
  EXPECT_FALSE(may_have_executed(attempt_class::not_processed));
  EXPECT_FALSE(may_have_executed(attempt_class::client_bug));
  EXPECT_FALSE(may_have_executed(attempt_class::business_conflict));
  EXPECT_FALSE(may_have_executed(attempt_class::rejected));
}

TEST(Classify, EveryClassHasItsOwnName) {
  EXPECT_EQ(to_string(attempt_class::succeeded), "succeeded");
  EXPECT_EQ(to_string(attempt_class::not_sent), "not_sent");
  EXPECT_EQ(to_string(attempt_class::unknown), "unknown");
  EXPECT_EQ(to_string(attempt_class::not_processed), "not_processed");
  EXPECT_EQ(to_string(attempt_class::in_progress), "in_progress");
  EXPECT_EQ(to_string(attempt_class::client_bug), "client_bug");
  EXPECT_EQ(to_string(attempt_class::business_conflict), "business_conflict");
  EXPECT_EQ(to_string(attempt_class::rejected), "rejected");
}

// ---------------------------------------------------------------------------------------------
// problem_name

TEST(ProblemName, IsTheLastPathSegmentOfTheContractsTypeUri) {
  EXPECT_EQ(problem_name("https://idem.example/problems/not-found"), "not-found");
  EXPECT_EQ(problem_name("https://idem.example/problems/idempotency-key-mismatch"),
            "idempotency-key-mismatch");
}

TEST(ProblemName, IgnoresTheBase) {
  EXPECT_EQ(problem_name("https://api.shop.example/v2/errors/not-found"), "not-found");
  EXPECT_EQ(problem_name("/problems/not-found"), "not-found");
}

TEST(ProblemName, IsTheWholeValueWithoutASlash) {
  EXPECT_EQ(problem_name("not-found"), "not-found");
  EXPECT_EQ(problem_name("about:blank"), "about:blank");  // RFC 9457's default type
  EXPECT_EQ(problem_name(""), "");
}

TEST(ProblemName, LeavesOutQueryAndFragment) {
  EXPECT_EQ(problem_name("https://idem.example/problems/not-found?lang=en"), "not-found");
  EXPECT_EQ(problem_name("https://idem.example/problems/not-found#details"), "not-found");
}

TEST(ProblemName, TrailingSlashNamesNothing) {
  EXPECT_EQ(problem_name("https://idem.example/problems/"), "");
}

}  // namespace
}  // namespace idem
