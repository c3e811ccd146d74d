#include "mock_server/http/problem.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace idem::mock {
namespace {

nlohmann::json body_of(const response& res) {
  return nlohmann::json::parse(res.body);
}

TEST(Problem, CarriesStatusAndProblemJsonContentType) {
  const auto res = make_problem(404, "not-found", "no such order");
  EXPECT_EQ(res.status, 404);
  EXPECT_EQ(res.header("content-type"), "application/problem+json");
}

TEST(Problem, BodyHasTypeTitleStatusAndDetail) {
  const auto body = body_of(make_problem(422, "idempotency-key-mismatch", "body differs"));
  EXPECT_EQ(body.at("type"), "https://idem.example/problems/idempotency-key-mismatch");
  EXPECT_EQ(body.at("title"), "Idempotency Key Mismatch");
  EXPECT_EQ(body.at("status"), 422);
  EXPECT_EQ(body.at("detail"), "body differs");
  EXPECT_EQ(body.size(), 4u);
}

TEST(Problem, TitleIsDerivedFromTheName) {
  EXPECT_EQ(body_of(make_problem(404, "not-found", "")).at("title"), "Not Found");
  EXPECT_EQ(body_of(make_problem(500, "internal", "")).at("title"), "Internal");
}

TEST(Problem, ExtensionsAreMergedIntoTheBody) {
  const auto errors =
      nlohmann::json::array({nlohmann::json{{"field", "currency"}, {"message", "bad"}}});
  const auto body = body_of(make_problem(400, "validation-failed", "invalid body",
                                         {{"errors", errors}, {"existing_order_id", "ord_1"}}));
  EXPECT_EQ(body.at("errors"), errors);
  EXPECT_EQ(body.at("existing_order_id"), "ord_1");
  EXPECT_EQ(body.at("type"), "https://idem.example/problems/validation-failed");
}

TEST(Problem, ExtensionsCannotOverrideStandardMembers) {
  const auto body =
      body_of(make_problem(409, "invalid-state-transition", "paid",
                           {{"type", "forged"}, {"status", 200}, {"title", "x"}, {"detail", "y"}}));
  EXPECT_EQ(body.at("type"), "https://idem.example/problems/invalid-state-transition");
  EXPECT_EQ(body.at("status"), 409);
  EXPECT_EQ(body.at("title"), "Invalid State Transition");
  EXPECT_EQ(body.at("detail"), "paid");
}

TEST(Problem, NonObjectExtensionsAreAProgrammingError) {
  EXPECT_THROW((void)make_problem(400, "validation-failed", "", nlohmann::json::array()),
               std::invalid_argument);
}

TEST(Problem, InvalidUtf8InDetailDoesNotThrow) {
  const auto res = make_problem(400, "validation-failed", "bad \xff byte");
  EXPECT_EQ(body_of(res).at("detail"), "bad \xef\xbf\xbd byte");  // U+FFFD replacement character
}

TEST(Problem, NonAsciiDetailIsWrittenAsUtf8) {
  const auto res = make_problem(402, "payment-declined",
                                "carte refus\xc3\xa9"
                                "e");
  EXPECT_NE(res.body.find("refus\xc3\xa9"
                          "e"),
            std::string::npos);
}

TEST(JsonResponse, CarriesStatusJsonContentTypeAndCompactBody) {
  const auto res = make_json(201, {{"id", "ord_1"}, {"status", "CREATED"}});
  EXPECT_EQ(res.status, 201);
  EXPECT_EQ(res.header("Content-Type"), "application/json");
  EXPECT_EQ(res.body, R"({"id":"ord_1","status":"CREATED"})");
}

}  // namespace
}  // namespace idem::mock
