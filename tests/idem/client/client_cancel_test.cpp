// Cancel and submit again, and the three cancellation types (Asio's meaning): what a user who
// taps "cancel" and then "pay" again is told must never be "nothing happened" when something
// may have, and a second tap must never start a second flight beside the first.

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>

#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

using boost::asio::cancellation_type;
using idem::kit::failed;
using idem::kit::hang;
using idem::kit::hang_connecting;
using idem::kit::problem;
using idem::kit::reply;

class client_cancel_test : public client_test {
 protected:
  client_options with_store() { return one_attempt_with(store); }
  // Submits `i` with a cancellation slot; the outcome lands in `into`.
  void submit_cancellable(client& c, const intent& i, boost::asio::cancellation_signal& signal,
                          std::optional<outcome>& into) {
    c.async_submit(i, boost::asio::bind_cancellation_slot(
                          signal.slot(), [&into](outcome o) { into = std::move(o); }));
  }
  // Submits a fresh order through a new client whose every request is answered `r` (by
  // default: a request that has left and hangs), with a cancellation slot (`cancel`), and runs
  // what is ready. The outcome lands in `got`.
  void start_hanging(fake_reply r = hang(), client_options o = {}) {
    if (o.base_url.empty()) o = with_store();
    c = make_client(std::move(o));
    net->respond([r](const http_request&) { return r; });
    submit_cancellable(*c, order, cancel, got);
    drain();
  }
  std::shared_ptr<memory_intent_store> store = std::make_shared<memory_intent_store>();
  std::unique_ptr<client> c;
  const intent order = orders::create(sample_order());
  boost::asio::cancellation_signal cancel;
  std::optional<outcome> got;
};

// The first POST is on the wire when the user cancels; the resubmission finds the server
// refusing connections. The first POST may have created the order: never "not sent".
TEST_F(client_cancel_test, ResubmitRightAfterCancelIsNeverNotSentWhenTheFirstPostMayHaveLeft) {
  auto c = make_client(with_store());
  const auto order = orders::create(sample_order());
  auto posts = std::make_shared<int>(0);
  net->respond([posts](const http_request& r) {
    if (r.method == "GET") return reply(200, R"({"data":[]})");
    return (*posts)++ == 0 ? hang() : failed(transport_failure::not_sent);
  });
  boost::asio::cancellation_signal cancel;
  std::optional<outcome> first, second;
  submit_cancellable(*c, order, cancel, first);
  drain();
  ASSERT_EQ(net->hanging(), 1u);

  cancel.emit(cancellation_type::terminal);
  c->async_submit(order, [&](outcome o) { second = std::move(o); });
  drain();

  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->kind(), outcome_kind::unresolved);
  EXPECT_EQ(second->kind(), outcome_kind::unresolved);
  const auto rec = store->find(order.key());
  ASSERT_TRUE(rec);
  EXPECT_TRUE(rec->maybe_sent());
  EXPECT_EQ(rec->last_outcome, outcome_kind::unresolved);
}

// Our own cancelled POST created the order; the resubmission is told 409 duplicate-business-id.
// That is settled by the lookup (it is ours), never a final "rejected".
TEST_F(client_cancel_test, ResubmitAfterCancelSettlesOurOwnDuplicateBusinessIdByLookup) {
  auto c = make_client(with_store());
  const auto req = sample_order();
  const auto order = orders::create(req);
  auto posts = std::make_shared<int>(0);
  net->respond([&, posts](const http_request& r) {
    if (r.method == "GET") return reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump());
    return (*posts)++ == 0 ? hang() : problem(409, "duplicate-business-id");
  });
  boost::asio::cancellation_signal cancel;
  std::optional<outcome> first, second;
  submit_cancellable(*c, order, cancel, first);
  drain();
  cancel.emit(cancellation_type::terminal);
  c->async_submit(order, [&](outcome o) { second = std::move(o); });
  drain();

  ASSERT_TRUE(second);
  EXPECT_EQ(second->kind(), outcome_kind::succeeded);
  EXPECT_TRUE(second->recovered_by_lookup());
}

// A cancelled flight that unwinds must not unregister the flight that followed it: a third
// submission joins the second instead of sending beside it.
TEST_F(client_cancel_test, AnUnwindingCancelledFlightNeverUnregistersItsSuccessor) {
  auto c = make_client(with_store());
  const auto order = orders::create(sample_order());
  net->respond([](const http_request&) { return hang(); });
  boost::asio::cancellation_signal cancel;
  std::optional<outcome> first, second, third;
  submit_cancellable(*c, order, cancel, first);
  drain();
  cancel.emit(cancellation_type::terminal);
  c->async_submit(order, [&](outcome o) { second = std::move(o); });
  drain();  // the first unwinds; the second sends and hangs
  ASSERT_TRUE(first);
  ASSERT_EQ(net->requests("POST").size(), 2u);

  net->respond([](const http_request&) { return reply(201, R"({"id":"ord_1"})"); });
  c->async_submit(order, [&](outcome o) { third = std::move(o); });
  drain();
  EXPECT_EQ(net->requests("POST").size(), 2u) << "a third flight sent under the same key";
  EXPECT_FALSE(third) << "the third submission should wait with the second";
  c.reset();  // cancels the second flight: both of its callers complete
  drain();
  ASSERT_TRUE(second && third);
  EXPECT_EQ(second->kind(), outcome_kind::unresolved);
  EXPECT_EQ(third->kind(), outcome_kind::unresolved);
}

// Partial cancellation: the attempt in flight finishes and its answer counts.
TEST_F(client_cancel_test, PartialCancellationLetsTheAttemptInFlightDecide) {
  start_hanging();
  cancel.emit(cancellation_type::partial);
  drain();
  EXPECT_FALSE(got) << "a partial cancellation must not abort a request that has left";
  ASSERT_EQ(net->hanging(), 1u);
  net->finish_hanging(reply(201, R"({"id":"ord_1"})"));
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
}

// Partial cancellation: after an attempt that did not decide, no further attempt is made.
TEST_F(client_cancel_test, PartialCancellationStopsRetryingAfterTheAttemptInFlight) {
  auto opts = with_store();
  opts.max_failed_attempts.reset();
  start_hanging(hang(), opts);
  cancel.emit(cancellation_type::partial);
  drain();
  net->respond([](const http_request&) { return reply(503); });
  net->finish_hanging(reply(503));
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::unresolved);
  EXPECT_EQ(net->requests("POST").size(), 1u);
}

// Total cancellation once the request has left: ignored (it could not be without side effects).
TEST_F(client_cancel_test, TotalCancellationIsIgnoredOnceSomethingMayHaveBeenSent) {
  start_hanging();
  cancel.emit(cancellation_type::total);
  drain();
  EXPECT_FALSE(got);
  net->finish_hanging(reply(201, R"({"id":"ord_1"})"));
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
}

// Total cancellation while still connecting: the transfer ends, nothing was sent.
TEST_F(client_cancel_test, TotalCancellationWhileNothingLeftEndsNotSent) {
  start_hanging(hang_connecting());
  cancel.emit(cancellation_type::total);
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::not_sent);
  EXPECT_EQ(net->requests("POST").size(), 1u);
  EXPECT_FALSE(store->find(order.key())->maybe_sent());
}

// Total cancellation while backing off after an attempt that may have executed: ignored.
TEST_F(client_cancel_test, TotalCancellationDuringBackoffAfterAMaybeSentAttemptIsIgnored) {
  auto opts = with_store();
  opts.max_failed_attempts.reset();
  clock = std::make_shared<fake_scheduler>(io.get_executor(), fake_scheduler::mode::manual);
  net = std::make_shared<fake_transport>(io.get_executor(), clock);
  auto c = make_client(opts);
  const auto order = orders::create(sample_order());
  auto posts = std::make_shared<int>(0);
  net->respond([posts](const http_request&) {
    return (*posts)++ == 0 ? reply(503) : reply(201, R"({"id":"ord_1"})");
  });
  boost::asio::cancellation_signal cancel;
  std::optional<outcome> got;
  submit_cancellable(*c, order, cancel, got);
  drain();  // the 503 came back; now waiting
  ASSERT_FALSE(got);
  cancel.emit(cancellation_type::total);
  drain();
  clock->advance(std::chrono::seconds(10));  // past any backoff, within the deadline
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
}

// Terminal cancellation aborts the request in flight: unresolved, since it had left.
TEST_F(client_cancel_test, TerminalCancellationAbortsTheTransferAndIsUnresolved) {
  start_hanging();
  cancel.emit(cancellation_type::terminal);
  drain();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::unresolved);
  EXPECT_EQ(net->hanging(), 0u);
}

}  // namespace
}  // namespace idem::test
