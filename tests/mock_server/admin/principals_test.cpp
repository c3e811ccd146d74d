// Keys are scoped by the principal a token belongs to, never by the token string (contract
// section 1): a backend maps an account's rotated tokens to that account. The mock server takes
// each token as a principal of its own unless told otherwise, with `--principal TOKEN=NAME` or
// `PUT /_mock/principals`; then a token refreshed in the middle of an intent keeps its key's
// scope, and the key replays instead of executing again.

#include <gtest/gtest.h>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

mock::server_options with_principals(std::map<std::string, std::string> principals) {
  auto o = test_server_options();
  o.principals = std::move(principals);
  return o;
}

TEST(MockPrincipals, TwoTokensOfOneNamedPrincipalShareAKey) {
  running_server server(with_principals({{"token-a", "acct-1"}, {"token-b", "acct-1"}}));
  api_client first{server.port(), "token-a"}, rotated{server.port(), "token-b"};
  ASSERT_TRUE(has_status(first.post("/v1/orders", "k-1", order_body("m-1")), 201));
  // The token was refreshed, the answer lost: the retry under the new token is a replay.
  const auto again = rotated.post("/v1/orders", "k-1", order_body("m-1"));
  EXPECT_TRUE(has_status(again, 201));
  EXPECT_TRUE(replayed_header_is(again, "true"));
  EXPECT_EQ(first.stats()["orders"], 1);
  // The orders are the principal's, whichever of its tokens asks.
  EXPECT_TRUE(has_status(rotated.get("/v1/orders?merchant_order_id=m-1"), 200));
}

TEST(MockPrincipals, ATokenNamedNowhereIsAPrincipalOfItsOwn) {
  running_server server(with_principals({{"token-a", "acct-1"}}));
  api_client named{server.port(), "token-a"}, other{server.port(), "token-c"};
  ASSERT_TRUE(has_status(named.post("/v1/orders", "k-1", order_body("m-1")), 201));
  const auto theirs = other.post("/v1/orders", "k-1", order_body("m-1"));
  EXPECT_TRUE(has_status(theirs, 201));
  EXPECT_FALSE(replayed_header_is(theirs, "true"));
  EXPECT_EQ(named.stats()["orders"], 2);
}

TEST(MockPrincipals, PutPrincipalsMapsTokensAtRunTimeAndDeleteRestoresTheCommandLines) {
  running_server server;
  api_client a{server.port(), "token-a"}, b{server.port(), "token-b"};
  auto put = a.admin("PUT", "/_mock/principals", {{"token-a", "acct"}, {"token-b", "acct"}});
  ASSERT_TRUE(has_status(put, 200));
  EXPECT_EQ(nlohmann::json::parse(put.res.body)["tokens"], 2);
  EXPECT_EQ(put.res.body.find("token-a"), std::string::npos) << "a token was echoed";
  ASSERT_TRUE(has_status(a.post("/v1/orders", "k-1", order_body("m-1")), 201));
  EXPECT_TRUE(replayed_header_is(b.post("/v1/orders", "k-1", order_body("m-1")), "true"));

  ASSERT_TRUE(has_status(a.admin("DELETE", "/_mock/principals"), 200));
  const auto unmapped = b.post("/v1/orders", "k-2", order_body("m-2"));
  ASSERT_TRUE(has_status(unmapped, 201));
  EXPECT_FALSE(replayed_header_is(a.post("/v1/orders", "k-2", order_body("m-2")), "true"));
}

TEST(MockPrincipals, PutPrincipalsRefusesWhatCannotBeAMapping) {
  running_server server;
  api_client a{server.port()};
  for (const char* body : {R"([])", R"({"token-a": 7})", R"({"token-a": ""})", R"({"": "x"})"}) {
    SCOPED_TRACE(body);
    EXPECT_TRUE(is_problem(a.admin("PUT", "/_mock/principals", nlohmann::json::parse(body)), 400,
                           "validation-failed"));
  }
  EXPECT_TRUE(is_problem(a.admin("PUT", "/_mock/principals", {{admin_token, "x"}}), 400,
                         "validation-failed"));
}

}  // namespace
}  // namespace idem::kit
