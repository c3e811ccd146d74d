// A token refreshed in the middle of an intent (contract sections 1 and 8): the real client and
// transport against the in-process mock server over real sockets. The first attempt executes and
// its answer is lost; the retry goes out under the refreshed token. A backend that scopes keys by
// account (here: the mock server told that both tokens belong to one principal) replays the first
// answer: one order. One that scopes them by token string executes the intent again.

#include <gtest/gtest.h>

#include <atomic>
#include <memory>

#include "tests/idem/support/live_client.hpp"

namespace idem::test::live {
namespace {

using kit::api_client;
using kit::running_server;

// "token-a" for the first request, "token-b" for every later one: a refresh after the first.
credentials refreshed_after_the_first_request(std::string principal_id) {
  auto calls = std::make_shared<std::atomic<int>>(0);
  return credentials::from_provider(
      [calls] {
        return std::string(calls->fetch_add(1) < 1 ? "Bearer token-a" : "Bearer token-b");
      },
      std::move(principal_id));
}

mock::server_options tokens_of_one_account() {
  auto o = kit::test_server_options();
  o.principals = {{"token-a", "acct-1"}, {"token-b", "acct-1"}};
  return o;
}

TEST(LiveTokenRotation, ARetryUnderARefreshedTokenOfTheSameAccountIsAReplayOneOrder) {
  running_server server(tokens_of_one_account());
  api_client api{server.port(), "token-a"};
  api.set_faults(only(on_create("drop_response_after_commit", {{"times", 1}})));
  auto options = live_options(server.port());
  options.credentials = refreshed_after_the_first_request("acct-1");

  const auto o = submit_live(options, orders::create(order_of("m-rotated")));

  ASSERT_EQ(o.kind(), outcome_kind::succeeded) << to_string(o.kind()) << " " << o.body();
  EXPECT_TRUE(o.replayed());
  EXPECT_EQ(o.attempts(), 2u);
  EXPECT_EQ(api.stats()["orders"], 1) << "one intent, two orders";
}

TEST(LiveTokenRotation, ABackendThatScopesKeysByTokenStringExecutesTheIntentAgain) {
  // What the contract forbids a backend to do, shown: why the mock server needs to be told.
  // The refreshed token is another principal there, so the retry is an unrelated request (even
  // the business ID is unique only per principal): a second order for one intent.
  running_server server;
  api_client api{server.port(), "token-a"};
  api.set_faults(only(on_create("drop_response_after_commit", {{"times", 1}})));
  auto options = live_options(server.port());
  options.credentials = refreshed_after_the_first_request("acct-1");

  const auto o = submit_live(options, orders::create(order_of("m-by-token")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << to_string(o.kind());
  EXPECT_FALSE(o.replayed());
  EXPECT_EQ(api.stats()["orders"], 2);
}

}  // namespace
}  // namespace idem::test::live
