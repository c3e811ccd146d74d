// Submitting an intent again (resume after unresolved, retry after a cancel, other credentials):
// what earlier submissions did is remembered through the intent store, so an intent that may
// have reached the server is never reported as not sent, and a refusal never closes it.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>

#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

using idem::kit::failed;
using idem::kit::hang;
using idem::kit::problem;
using idem::kit::reply;

// Writes answered by `post`; lookups find nothing (an empty order list, no such order).
fake_transport::responder writes(fake_reply post) {
  return [post](const http_request& r) {
    if (r.method == "GET") return reply(200, R"({"data":[]})");
    return post;
  };
}

class client_resubmit_test : public client_test {
 protected:
  client_options with_store() { return one_attempt_with(store); }
  std::shared_ptr<memory_intent_store> store = std::make_shared<memory_intent_store>();
};

TEST_F(client_resubmit_test, AfterAnAttemptThatMayHaveArrivedAResumeIsNeverNotSent) {
  auto c = make_client(with_store());
  const auto order = orders::create(sample_order());
  net->respond(writes(failed(transport_failure::unknown)));  // sent, then the connection reset
  ASSERT_EQ(submit(*c, order).kind(), outcome_kind::unresolved);

  // The resume finds the server unreachable: nothing of *this* submission left, but the first
  // one may have created the order. "Not sent" would invite the app to order again.
  net->respond(writes(failed(transport_failure::not_sent)));
  const auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::unresolved);
  EXPECT_EQ(store->find(order.key())->last_outcome, outcome_kind::unresolved);
}

TEST_F(client_resubmit_test, AResumeThatWasNeverSentBeforeStaysNotSent) {
  auto c = make_client(with_store());
  const auto order = orders::create(sample_order());
  net->respond(writes(failed(transport_failure::not_sent)));
  ASSERT_EQ(submit(*c, order).kind(), outcome_kind::not_sent);
  EXPECT_EQ(submit(*c, order).kind(), outcome_kind::not_sent);
}

TEST_F(client_resubmit_test, DuplicateBusinessIdOnAResumeIsSettledByTheLookup) {
  auto c = make_client(with_store());
  const auto req = sample_order();
  const auto order = orders::create(req);
  net->respond(writes(failed(transport_failure::unknown)));
  ASSERT_EQ(submit(*c, order).kind(), outcome_kind::unresolved);

  // Meanwhile the key's record expired on the server; the order our first attempt created
  // still holds the business ID. Only the lookup can tell it is ours.
  net->respond([&](const http_request& r) {
    if (r.method == "POST") return problem(409, "duplicate-business-id");
    return reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump());
  });
  const auto o = submit(*c, order);
  EXPECT_EQ(o.kind(), outcome_kind::succeeded);
  EXPECT_TRUE(o.recovered_by_lookup());
}

TEST_F(client_resubmit_test, RefusalUnderOtherCredentialsLeavesTheIntentOpen) {
  auto a = make_client(with_store());
  const auto order = orders::create(sample_order());
  net->respond(writes(reply(503)));
  ASSERT_EQ(submit(*a, order).kind(), outcome_kind::unresolved);

  auto opts = with_store();
  opts.credentials = bearer_token{"token-b"};
  auto b = make_client(opts);
  ASSERT_EQ(submit(*b, order).error(), "foreign-credentials");
  // The refusal is the caller's answer, not the intent's end: it must still be resumed.
  EXPECT_EQ(store->find(order.key())->last_outcome, outcome_kind::unresolved);
  EXPECT_TRUE(store->find(order.key())->is_open());
  ASSERT_EQ(store->open_intents().size(), 1u);
  EXPECT_EQ(store->open_intents()[0].what.key(), order.key());
}

TEST_F(client_resubmit_test, SubmittingAgainRightAfterACancelStartsAFreshFlight) {
  auto c = make_client();
  const auto order = orders::create(sample_order());
  auto answers = std::make_shared<int>(0);
  net->respond([answers](const http_request&) {
    return (*answers)++ == 0 ? hang() : reply(201, R"({"id":"ord_1"})");
  });
  boost::asio::cancellation_signal cancel;
  std::optional<outcome> first;
  std::optional<outcome> second;
  c->async_submit(order, boost::asio::bind_cancellation_slot(
                             cancel.slot(), [&](outcome o) { first = std::move(o); }));
  drain();
  ASSERT_EQ(net->hanging(), 1u);

  // The user cancels and taps "pay" again at once, before the cancelled transfer has unwound.
  cancel.emit(boost::asio::cancellation_type::terminal);
  c->async_submit(order, [&](outcome o) { second = std::move(o); });
  drain();

  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->kind(), outcome_kind::unresolved);
  EXPECT_EQ(second->kind(), outcome_kind::succeeded) << "joined the cancelled flight";
  EXPECT_EQ(net->requests("POST").size(), 2u);
}

}  // namespace
}  // namespace idem::test
