// client::async_resume: what a killed process left open in the store is driven to an end by a
// new client, each intent under its own key; plans are bound to what their prerequisite created
// or abandoned when it can never succeed; another principal's intents are never sent.
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>

#include "idem/memory_intent_store.hpp"
#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

using idem::kit::failed;
using idem::kit::hang;
using idem::kit::problem;
using idem::kit::reply;

class client_resume_test : public client_test {
 protected:
  std::shared_ptr<memory_intent_store> store = std::make_shared<memory_intent_store>();

  // A client on the shared store whose submissions end after one attempt that decides nothing.
  std::unique_ptr<client> client_on_store(std::string token = "token-a") {
    auto o = one_attempt_with(store);
    o.credentials = bearer_token{std::move(token)};
    return make_client(o);
  }
  // The previous process: `i` was sent once and its answer lost; it is open in the store.
  void leave_unresolved(client& c, const intent& i) {
    net->respond([](const http_request&) { return failed(transport_failure::unknown); });
    ASSERT_EQ(submit(c, i).kind(), outcome_kind::unresolved);
  }
  void plan(client& c, const planned_intent& p) {
    std::optional<std::error_code> done;
    c.async_plan(p, [&](std::error_code ec) { done = ec; });
    drain();
    ASSERT_EQ(done, std::error_code{});
  }
  // The previous process planned an order and its payment; the order's answer was lost.
  std::pair<intent, planned_intent> leave_order_with_planned_payment() {
    auto before = client_on_store();
    const auto order = orders::create(sample_order());
    const auto payment = orders::plan_payment(order, {.amount_minor = 1500, .currency = "EUR"});
    leave_unresolved(*before, order);
    plan(*before, payment);
    return {order, payment};
  }
  resume_summary resume(client& c, resume_options o = {}) {
    std::optional<resume_summary> got;
    c.async_resume(std::move(o), [&](resume_summary s) { got = std::move(s); });
    drain();
    EXPECT_TRUE(got.has_value()) << "the resume did not complete";
    return got.value_or(resume_summary{});
  }
  // What the transport was asked since `baseline` (the previous process's requests are not).
  std::vector<http_request> since(const std::string& method) const {
    std::vector<http_request> out;
    const auto& all = net->requests();
    for (std::size_t i = baseline; i < all.size(); ++i)
      if (method.empty() || all[i].method == method) out.push_back(all[i]);
    return out;
  }
  std::vector<std::string> keys_sent() const {
    std::vector<std::string> keys;
    for (const auto& r : since("POST"))
      keys.push_back(*header_of(r, "Idempotency-Key"));
    return keys;
  }
  std::size_t baseline = 0;
};

TEST_F(client_resume_test, AnIntentLeftUnresolvedIsSentAgainUnderItsKeyAndSucceeds) {
  const auto order = orders::create(sample_order());
  leave_unresolved(*client_on_store(), order);
  baseline = net->requests().size();

  auto next = client_on_store();  // the next process, same store and principal
  net->respond([](const http_request&) { return reply(201, R"({"id":"ord_1"})"); });
  const auto s = resume(*next);
  EXPECT_FALSE(s.error) << s.error.message();
  EXPECT_EQ(s.open, 1u);
  EXPECT_EQ(s.succeeded, 1u);
  ASSERT_EQ(s.outcomes.size(), 1u);
  EXPECT_EQ(s.outcomes[0].key(), order.key().str());
  EXPECT_EQ(keys_sent(), std::vector<std::string>{order.key().str()});
  EXPECT_TRUE(s.still_open.empty());
  EXPECT_TRUE(store->open_intents().empty());
}

TEST_F(client_resume_test, APlannedPaymentIsBoundToTheOrderItsPrerequisiteCreated) {
  const auto [order, payment] = leave_order_with_planned_payment();
  baseline = net->requests().size();

  auto next = client_on_store();
  net->respond([](const http_request& r) {
    return r.url.ends_with("/payments") ? reply(201, R"({"id":"pay_1"})")
                                        : reply(201, R"({"id":"ord_9"})");
  });
  const auto s = resume(*next);
  EXPECT_EQ(s.open, 2u);
  EXPECT_EQ(s.succeeded, 2u);
  const auto posts = since("POST");
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_EQ(posts[1].url, "http://api.test/v1/orders/ord_9/payments");
  EXPECT_EQ(keys_sent(), (std::vector<std::string>{order.key().str(), payment.key().str()}));
}

TEST_F(client_resume_test, APlanWhosePrerequisiteIsRejectedIsAbandonedAndNeverSent) {
  const auto [order, payment] = leave_order_with_planned_payment();
  baseline = net->requests().size();

  auto next = client_on_store();
  // The order's re-send is a replay of a definite rejection.
  net->respond([](const http_request&) {
    return problem(422, "validation-failed", {{"Idempotent-Replayed", "true"}});
  });
  const auto s = resume(*next);
  EXPECT_EQ(s.rejected, 1u);
  EXPECT_EQ(s.abandoned, 1u);
  EXPECT_EQ(since("POST").size(), 1u) << "the payment of a rejected order was sent";
  EXPECT_EQ(store->find(payment.key())->state, intent_state::abandoned);
}

TEST_F(client_resume_test, APlanWhosePrerequisiteIsStillOpenStaysOpenForTheNextResume) {
  const auto [order, payment] = leave_order_with_planned_payment();

  auto next = client_on_store();
  net->respond([](const http_request&) { return failed(transport_failure::unknown); });
  const auto s = resume(*next);
  EXPECT_EQ(s.unresolved, 1u);
  EXPECT_EQ(s.not_started, 1u);
  EXPECT_EQ(s.still_open.size(), 2u);
  EXPECT_TRUE(store->find(payment.key())->is_open());
}

TEST_F(client_resume_test, AnotherPrincipalsIntentsAreRefusedOrSkippedNeverSent) {
  const auto theirs = orders::create(sample_order("m-theirs"));
  leave_unresolved(*client_on_store("token-a"), theirs);
  auto mine_client = client_on_store("token-b");
  const auto mine = orders::create(sample_order("m-mine"));
  leave_unresolved(*mine_client, mine);
  baseline = net->requests().size();
  net->respond([](const http_request&) { return reply(201, R"({"id":"ord_1"})"); });

  auto refused = resume(*mine_client);
  EXPECT_EQ(refused.error, make_error_code(errc::foreign_credentials));
  EXPECT_EQ(refused.foreign, 1u);
  EXPECT_TRUE(since("").empty()) << "a refused resume sent something";

  auto skipped = resume(*mine_client, {.skip_foreign = true});
  EXPECT_FALSE(skipped.error);
  EXPECT_EQ(skipped.foreign, 1u);
  EXPECT_EQ(skipped.succeeded, 1u);
  EXPECT_EQ(keys_sent(), std::vector<std::string>{mine.key().str()});
  EXPECT_TRUE(store->find(theirs.key())->is_open());
}

TEST_F(client_resume_test, AKeyWrittenDownUnderAnotherKeyHeaderIsNeverSentInThisOne) {
  // The server reads the key from the header it was first sent in: sent in another, the key is
  // not there at all and a request that may have executed executes again. A key belongs to its
  // principal and the header that carries it.
  auto o = one_attempt_with(store);
  o.key_header = "X-Request-Key";
  auto before = make_client(o);
  const auto order = orders::create(sample_order());
  leave_unresolved(*before, order);
  baseline = net->requests().size();

  auto next = client_on_store();  // Idempotency-Key, the default
  net->respond([](const http_request&) { return reply(201, R"({"id":"ord_1"})"); });
  const auto s = resume(*next);
  EXPECT_EQ(s.error, make_error_code(errc::foreign_credentials));
  EXPECT_TRUE(since("").empty()) << "the key went out in a header the server does not read";
  const auto direct = submit(*next, order);
  EXPECT_EQ(direct.reason(), make_error_code(errc::foreign_credentials));
  EXPECT_TRUE(since("").empty());

  auto same = make_client(o);  // the same header (names are case-insensitive): resumed
  o.key_header = "x-request-key";
  auto same_lower = make_client(o);
  EXPECT_EQ(same_lower->principal(), same->principal());
  EXPECT_EQ(resume(*same).succeeded, 1u);
  ASSERT_EQ(since("POST").size(), 1u);
  EXPECT_EQ(*header_of(since("POST")[0], "X-Request-Key"), order.key().str());
}

TEST_F(client_resume_test, CancellingStartsNothingMoreAndCountsEveryIntentOnce) {
  auto before = client_on_store();
  const auto first = orders::create(sample_order("m-1"));
  const auto second = orders::create(sample_order("m-2"));
  leave_unresolved(*before, first);
  leave_unresolved(*before, second);
  baseline = net->requests().size();

  auto next = client_on_store();
  net->respond([](const http_request&) { return hang(); });
  boost::asio::cancellation_signal cancel;
  std::optional<resume_summary> got;
  next->async_resume({.concurrency = 1},
                     boost::asio::bind_cancellation_slot(
                         cancel.slot(), [&](resume_summary s) { got = std::move(s); }));
  drain();
  ASSERT_EQ(since("POST").size(), 1u);
  cancel.emit(boost::asio::cancellation_type::terminal);
  drain();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->error, make_error_code(errc::cancelled));
  EXPECT_EQ(got->unresolved, 1u);
  EXPECT_EQ(got->not_started, 1u);
  EXPECT_EQ(got->still_open.size(), 2u);
  EXPECT_EQ(since("POST").size(), 1u);
}

TEST_F(client_resume_test, OptionsThatCannotWorkAreRefusedWhereTheyAreGiven) {
  auto c = client_on_store();
  EXPECT_THROW((void)c->async_resume({.concurrency = 0}, [](resume_summary) {}),
               std::invalid_argument);
}

TEST_F(client_resume_test, ACoroutineAwaitsTheSummary) {
  const auto order = orders::create(sample_order());
  leave_unresolved(*client_on_store(), order);
  auto next = client_on_store();
  net->respond([](const http_request&) { return reply(201, R"({"id":"ord_1"})"); });
  std::optional<resume_summary> got;
  boost::asio::co_spawn(
      io,
      [&]() -> boost::asio::awaitable<void> {
        got = co_await next->async_resume({}, boost::asio::use_awaitable);
      },
      boost::asio::detached);
  drain();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->succeeded, 1u);
}

}  // namespace
}  // namespace idem::test
