// What an app meets first, against the in-process mock server over real sockets: a short
// deadline that still sends, a reason on every outcome (the same one for a duplicate order
// whether the server's 409 or the lookup says it), and policies refused where they are built.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <stdexcept>
#include <string>

#include "tests/idem/support/live_client.hpp"

namespace idem::test::live {
namespace {

using kit::running_server;

// The defaults an app starts from, but for the server's address and the jitter's seed.
client_options defaults_for(std::uint16_t port) {
  client_options o;
  o.base_url = url_of(port);
  o.credentials = bearer_token{tenant};
  o.rng_seed = 7;
  return o;
}

// Issue 42, item 1: a 3 s budget (a checkout button's) with the default lookup_reserve of 3 s
// sent nothing and said nothing. The reserve now scales with a short deadline.
TEST(LiveClientReason, AThreeSecondDeadlineWithTheDefaultReserveSendsAndSucceeds) {
  running_server server;
  auto options = defaults_for(server.port());
  options.deadline.total = std::chrono::seconds{3};

  const auto o = submit_live(options, orders::create(order_of("m-three-seconds")));

  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << o.describe();
  EXPECT_EQ(o.attempts(), 1u);
  EXPECT_EQ(o.status(), 201);
  EXPECT_FALSE(o.reason()) << o.reason().message();
}

TEST(LiveClientReason, ADeadlineTooShortForAnyAttemptEndsNotSentAndSaysSo) {
  running_server server;
  auto options = defaults_for(server.port());
  // 105 ms less a tenth for the lookup leaves 95 ms: under the 100 ms an attempt needs.
  options.deadline.total = std::chrono::milliseconds{105};

  const auto o = submit_live(options, orders::create(order_of("m-too-short")));

  EXPECT_EQ(o.kind(), outcome_kind::not_sent);
  EXPECT_EQ(o.attempts(), 0u);
  EXPECT_EQ(o.reason(), errc::deadline_too_short);
  EXPECT_EQ(o.reason().category().name(), std::string("idem"));
  EXPECT_EQ(o.describe(),
            "not_sent, 0 attempts: deadline-too-short: the deadline leaves no time for an attempt");
}

// Issue 42, item 3: a duplicate order was "duplicate-business-id" when the lookup proved it,
// but only a problem-type URL when the server answered 409 at once.
TEST(LiveClientReason, ADuplicateOrderAnsweredWith409HasTheSameErrorAsOneFoundByTheLookup) {
  running_server server;
  const auto options = live_options(server.port());
  ASSERT_EQ(submit_live(options, orders::create(order_of("m-taken"))).kind(),
            outcome_kind::succeeded);
  // Another intent (its own key) for the same business ID, with other content.
  const auto o = submit_live(options, orders::create(order_of("m-taken", "USD")));

  EXPECT_EQ(o.kind(), outcome_kind::rejected);
  EXPECT_EQ(o.status(), 409);
  EXPECT_EQ(o.error(), "duplicate-business-id");
  EXPECT_EQ(o.reason(), errc::duplicate_business_id);
  EXPECT_EQ(o.error(), to_string(errc::duplicate_business_id));
  EXPECT_EQ(o.describe().rfind("rejected, HTTP 409 Conflict, 1 attempt: duplicate-business-id: "
                               "another intent owns this business ID",
                               0),
            0u)
      << o.describe();
}

TEST(LiveClientReason, TheCreatedOrdersIdNeedsNoJson) {
  running_server server;
  const auto o = submit_live(live_options(server.port()), orders::create(order_of("m-id")));

  ASSERT_EQ(o.kind(), outcome_kind::succeeded);
  const auto id = orders::created_order_id(o);
  ASSERT_TRUE(id.has_value());
  EXPECT_EQ(*id, nlohmann::json::parse(o.body()).at("id").get<std::string>());
}

// --- policies checked where they are built ---------------------------------------------------

// The message of the std::invalid_argument that building a client with `options` throws, or
// "" if it builds.
std::string refusal_of(const client_options& options) {
  boost::asio::io_context io;
  try {
    client c{io.get_executor(), options};
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return {};
}

TEST(ClientPolicyCheck, APolicyThatCannotWorkIsRefusedNamingTheField) {
  client_options o;
  o.base_url = "http://127.0.0.1:1";
  EXPECT_EQ(refusal_of(o), "");
  auto zero = o;
  zero.deadline.total = std::chrono::milliseconds{0};
  EXPECT_EQ(refusal_of(zero).rfind("deadline.total: must be positive", 0), 0u) << refusal_of(zero);
  auto negative = o;
  negative.deadline.total = -1s;
  EXPECT_EQ(refusal_of(negative).rfind("deadline.total", 0), 0u);
  auto longer = o;
  longer.deadline = {.total = 1s, .min_attempt = 2s};
  EXPECT_EQ(refusal_of(longer).rfind("deadline.min_attempt: 2000 ms is longer than", 0), 0u)
      << refusal_of(longer);
  auto reserve = o;
  reserve.deadline.lookup_reserve = -1s;
  EXPECT_EQ(refusal_of(reserve).rfind("deadline.lookup_reserve", 0), 0u);
  auto budget = o;
  budget.retry_budget.reserve = -1;
  EXPECT_EQ(refusal_of(budget).rfind("retry_budget.reserve", 0), 0u) << refusal_of(budget);
  auto trickle = o;
  trickle.retry_budget.trickle_per_second = -0.5;
  EXPECT_EQ(refusal_of(trickle).rfind("retry_budget.trickle_per_second", 0), 0u);
  auto poll = o;
  poll.poll_interval = std::chrono::milliseconds{0};
  EXPECT_EQ(refusal_of(poll).rfind("client_options.poll_interval", 0), 0u);
  auto backoff = o;
  backoff.backoff = full_jitter{.base = -1s};
  EXPECT_EQ(refusal_of(backoff).rfind("backoff.base", 0), 0u);
}

TEST(ClientPolicyCheck, ASubmissionsOwnDeadlineIsCheckedAtSubmit) {
  boost::asio::io_context io;
  client_options o;
  o.base_url = "http://127.0.0.1:1";
  client c{io.get_executor(), o};
  const auto i = orders::create(order_of("m-policy"));
  try {
    c.async_submit(i, submit_options{.deadline = deadline_policy{.total = 0s}}, [](outcome) {});
    ADD_FAILURE() << "a zero deadline was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_EQ(std::string(e.what()).rfind("submit_options.deadline.total", 0), 0u) << e.what();
  }
}

}  // namespace
}  // namespace idem::test::live
