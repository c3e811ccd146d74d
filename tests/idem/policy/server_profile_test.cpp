// Server profiles: each profile's table (how a backend says in progress, mismatch, missing or
// invalid key, business conflict, replay, rate limit), the app's own classifier, and the safety
// rule that no profile may break: an ambiguous 409/425 is never a rejection.
#include "idem/server_profile.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace idem {
namespace {

struct row {
  int status;
  std::string body;
  attempt_class expected;
  std::string error{};
  header_list headers{};
};

answer_meaning classify_with(const server_profile& p, const row& r) {
  return p.classify(answer_view{r.status, r.headers, r.body});
}

void expect_rows(const server_profile& p, const std::vector<row>& rows) {
  for (const auto& r : rows) {
    const answer_meaning m = classify_with(p, r);
    EXPECT_EQ(m.cls, r.expected) << p.name() << " " << r.status << " " << r.body << " -> "
                                 << to_string(m.cls);
    EXPECT_EQ(m.error, r.error) << p.name() << " " << r.status << " " << r.body;
  }
}

std::string problem(std::string_view name) {
  return R"({"type":"https://idem.example/problems/)" + std::string(name) + R"("})";
}

const std::string html_409 =
    "<!DOCTYPE html><html><body><pre>Error: A previous request is "
    "still in progress for this key.</pre></body></html>";

TEST(ServerProfile, IetfReadsProblemTypes) {
  expect_rows(server_profile::ietf(),
              {
                  {201, "{}", attempt_class::succeeded},
                  {409, problem("idempotency-request-in-progress"), attempt_class::in_progress},
                  {409, problem("duplicate-business-id"), attempt_class::business_conflict},
                  {409, problem("invalid-state-transition"), attempt_class::rejected},
                  {422, problem("idempotency-key-mismatch"), attempt_class::client_bug,
                   "idempotency-key-mismatch"},
                  {400, problem("idempotency-key-missing"), attempt_class::client_bug,
                   "idempotency-key-missing"},
                  {400, problem("idempotency-key-invalid"), attempt_class::client_bug,
                   "idempotency-key-invalid"},
                  {400, problem("validation-failed"), attempt_class::rejected},
                  {402, problem("payment-declined"), attempt_class::rejected},
                  {429, problem("rate-limited"), attempt_class::not_processed},
                  {503, problem("unavailable"), attempt_class::unknown},
                  {408, "", attempt_class::unknown},
                  {302, "", attempt_class::unknown},
              });
}

TEST(ServerProfile, EveryProfileTreatsABare409Or425AsInProgress) {
  // express-idempotency answers its in-progress 409 with Express's HTML error page; others say
  // nothing at all. None of it may become `rejected`.
  for (const auto& p :
       {server_profile::ietf(), server_profile::stripe(), server_profile::generic()}) {
    expect_rows(p, {
                       {409, "", attempt_class::in_progress},
                       {409, html_409, attempt_class::in_progress},
                       {409, R"({"error":"conflict"})", attempt_class::in_progress},
                       {409, problem("something-else"), attempt_class::in_progress},
                       {425, "", attempt_class::in_progress},
                   });
  }
}

TEST(ServerProfile, StripeReadsErrorCodesAndShouldRetry) {
  expect_rows(
      server_profile::stripe(),
      {
          {200, R"({"id":"pi_1"})", attempt_class::succeeded},
          {409, R"({"error":{"type":"invalid_request_error","code":"idempotency_key_in_use"}})",
           attempt_class::in_progress},
          {400,
           R"({"error":{"type":"idempotency_error","message":"Keys for idempotent requests can only be used with the same parameters they were first used with."}})",
           attempt_class::client_bug, "idempotency-key-mismatch"},
          {409, R"({"error":{"type":"invalid_request_error","code":"resource_already_exists"}})",
           attempt_class::business_conflict},
          {402, R"({"error":{"type":"card_error","code":"card_declined"}})",
           attempt_class::rejected},
          {429, R"({"error":{"type":"invalid_request_error","code":"rate_limit"}})",
           attempt_class::not_processed},
          {400, R"({"error":{"type":"invalid_request_error","code":"lock_timeout"}})",
           attempt_class::unknown, "", header_list{{"Stripe-Should-Retry", "true"}}},
          {500, R"({"error":{"type":"api_error"}})", attempt_class::unknown},
          // An error object of the wrong shape is read as saying nothing, never thrown on.
          {400, R"({"error":{"type":5,"code":["x"]}})", attempt_class::rejected},
          {409, R"({"error":{"type":null,"code":{"a":1}}})", attempt_class::in_progress},
          {402, R"({"error":"card_declined"})", attempt_class::rejected},
      });
}

TEST(ServerProfile, GenericRecognisesKeyMisuseByStatusAndWords) {
  expect_rows(server_profile::generic(),
              {
                  {201, "{}", attempt_class::succeeded},
                  {417, "Misuse of the idempotency key. Please check your request.",
                   attempt_class::client_bug, "idempotency-key-misuse"},
                  {400, R"({"message":"Idempotency-Key is missing"})", attempt_class::client_bug,
                   "idempotency-key-misuse"},
                  {422, "Idempotency-Key is already used", attempt_class::client_bug,
                   "idempotency-key-misuse"},
                  {422, R"({"message":"amount must be positive"})", attempt_class::rejected},
                  {400, "", attempt_class::rejected},
                  {404, "", attempt_class::rejected},
                  // A problem+json type still means what the IETF table says.
                  {409, problem("duplicate-business-id"), attempt_class::business_conflict},
                  {422, problem("idempotency-key-mismatch"), attempt_class::client_bug,
                   "idempotency-key-mismatch"},
              });
}

TEST(ServerProfile, ReplayMarkers) {
  const header_list ietf_marker{{"idempotent-replayed", "true"}};
  const header_list other_marker{{"X-Idempotency-Replayed", "TRUE"}};
  const header_list no{{"Idempotent-Replayed", "false"}};
  EXPECT_TRUE(server_profile::ietf().replayed(ietf_marker));
  EXPECT_TRUE(server_profile::stripe().replayed(ietf_marker));
  EXPECT_FALSE(server_profile::ietf().replayed(other_marker));
  EXPECT_TRUE(server_profile::generic().replayed(other_marker));
  EXPECT_FALSE(server_profile::generic().replayed(no));
}

TEST(ServerProfile, AppClassifierComesFirstAndNulloptFallsBack) {
  auto p = server_profile::generic().with_classifier(
      [](const answer_view& a) -> std::optional<answer_meaning> {
        if (a.status == 400 && a.body == "ORDER_EXISTS") {
          return answer_meaning{.cls = attempt_class::business_conflict};
        }
        if (a.status == 418) return answer_meaning{.cls = attempt_class::unknown};
        return std::nullopt;
      });
  expect_rows(p, {
                     {400, "ORDER_EXISTS", attempt_class::business_conflict},
                     {418, "", attempt_class::unknown},
                     {417, "", attempt_class::client_bug, "idempotency-key-misuse"},
                 });
  EXPECT_EQ(p.name(), "generic");
}

TEST(ServerProfile, TheSafetyRuleBindsTheAppClassifierToo) {
  auto p = server_profile::ietf().with_classifier([](const answer_view&) {
    return std::optional<answer_meaning>(answer_meaning{.cls = attempt_class::rejected});
  });
  expect_rows(p, {{409, "", attempt_class::in_progress},
                  {425, "", attempt_class::in_progress},
                  {400, "", attempt_class::rejected}});
  // ...unless it says the rejection is definite (it knows its backend).
  auto q = server_profile::ietf().with_classifier([](const answer_view&) {
    return std::optional<answer_meaning>(
        answer_meaning{.cls = attempt_class::rejected, .definite = true});
  });
  expect_rows(q, {{409, "", attempt_class::rejected}});
}

TEST(ServerProfile, ByName) {
  EXPECT_EQ(server_profile::by_name("ietf")->kind(), server_profile::family::ietf);
  EXPECT_EQ(server_profile::by_name("stripe")->kind(), server_profile::family::stripe);
  EXPECT_EQ(server_profile::by_name("generic")->kind(), server_profile::family::generic);
  EXPECT_FALSE(server_profile::by_name("IETF"));
  EXPECT_FALSE(server_profile::by_name(""));
}

}  // namespace
}  // namespace idem
