// The clocks the client runs on: the production asio_scheduler (no test waits on it for real:
// only zero waits and cancelled ones), the virtual fake_scheduler, and the immutable intent.

#include <gtest/gtest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/io_context.hpp>
#include <optional>

#include "idem/client.hpp"
#include "idem/intent.hpp"
#include "idem/memory_intent_store.hpp"
#include "idem/orders.hpp"
#include "idem/scheduler.hpp"
#include "idem/testing/fake_scheduler.hpp"

namespace idem {
namespace {

namespace asio = boost::asio;
using namespace std::chrono_literals;
using idem::kit::fake_scheduler;

TEST(asio_scheduler_test, ZeroWaitCompletesLaterNotInline) {
  asio::io_context io;
  asio_scheduler s(io.get_executor());
  std::optional<std::error_code> got;
  s.async_wait(0ms, [&](std::error_code ec) { got = ec; });
  EXPECT_FALSE(got);
  io.run();
  ASSERT_TRUE(got);
  EXPECT_FALSE(*got);
}

TEST(asio_scheduler_test, CancelledWaitCompletesWithOperationCanceled) {
  asio::io_context io;
  asio_scheduler s(io.get_executor());
  asio::cancellation_signal cancel;
  std::optional<std::error_code> got;
  s.async_wait(1h,
               asio::bind_cancellation_slot(cancel.slot(), [&](std::error_code ec) { got = ec; }));
  io.poll();
  EXPECT_FALSE(got);
  cancel.emit(asio::cancellation_type::terminal);
  io.run();
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, std::make_error_code(std::errc::operation_canceled));
}

// The caller's slot outlives the wait (a flight reuses one signal for all its operations): a
// cancel emitted after the wait completed must find nothing to cancel, not the freed timer
// (AddressSanitizer: heap-use-after-free before the fix, in the flush's and the parked flight's
// signals).
TEST(asio_scheduler_test, ACancelEmittedAfterTheWaitCompletedTouchesNothing) {
  asio::io_context io;
  asio_scheduler s(io.get_executor());
  asio::cancellation_signal signal;
  std::optional<std::error_code> got;
  s.async_wait(0ms,
               asio::bind_cancellation_slot(signal.slot(), [&](std::error_code ec) { got = ec; }));
  io.run();
  ASSERT_TRUE(got);
  EXPECT_FALSE(*got);
  signal.emit(asio::cancellation_type::terminal);
  io.restart();
  EXPECT_EQ(io.poll(), 0u);
  // The slot still serves the caller's next wait.
  std::optional<std::error_code> second;
  s.async_wait(
      1h, asio::bind_cancellation_slot(signal.slot(), [&](std::error_code ec) { second = ec; }));
  signal.emit(asio::cancellation_type::terminal);
  io.restart();
  io.run();
  ASSERT_TRUE(second);
  EXPECT_EQ(*second, std::errc::operation_canceled);
}

TEST(fake_scheduler_test, AutoAdvanceJumpsTheClockInDueOrder) {
  asio::io_context io;
  fake_scheduler s(io.get_executor());
  std::vector<int> order;
  s.async_wait(5s, [&](std::error_code) { order.push_back(5); });
  s.async_wait(2s, [&](std::error_code) { order.push_back(2); });
  io.run();
  EXPECT_EQ(order, (std::vector<int>{2, 5}));
  EXPECT_EQ(s.elapsed(), 5s);
  EXPECT_EQ(s.wall_now() - fake_scheduler(io.get_executor()).wall_now(), 5s);
}

TEST(fake_scheduler_test, ManualModeCompletesOnlyWhatIsDue) {
  asio::io_context io;
  fake_scheduler s(io.get_executor(), fake_scheduler::mode::manual);
  int done = 0;
  s.async_wait(1s, [&](std::error_code) { ++done; });
  s.async_wait(3s, [&](std::error_code) { ++done; });
  io.poll();
  EXPECT_EQ(done, 0);
  s.advance(2s);
  io.restart();  // poll() stopped the context when it ran out of work
  io.poll();
  EXPECT_EQ(done, 1);
  EXPECT_EQ(s.pending(), 1u);
  asio::cancellation_signal cancel;
  std::optional<std::error_code> got;
  s.async_wait(1h,
               asio::bind_cancellation_slot(cancel.slot(), [&](std::error_code ec) { got = ec; }));
  cancel.emit(asio::cancellation_type::terminal);
  io.restart();
  io.poll();
  ASSERT_TRUE(got);
  EXPECT_EQ(*got, std::make_error_code(std::errc::operation_canceled));
}

// The smallest order: one item, merchant order id "m-1".
orders::order_request one_item_order() {
  return {.merchant_order_id = "m-1",
          .customer_id = "c",
          .currency = "EUR",
          .amount_minor = 10,
          .items = {{.sku = "s", .quantity = 1, .unit_price_minor = 10}}};
}

// Answers every request at once, from inside the call, after the virtual clock has moved on by
// `takes` (a transport of the app's own may do either; idem's own never answers inline).
class inline_transport final : public transport {
 public:
  inline_transport(std::shared_ptr<fake_scheduler> clock, std::chrono::milliseconds takes)
      : clock_(std::move(clock)), takes_(takes) {}

 protected:
  void send_impl(http_request, boost::asio::any_completion_handler<signature> handler) override {
    clock_->pass(takes_);
    transport_result r;
    r.response.status = 201;
    std::move(handler)(std::move(r));
  }

 private:
  std::shared_ptr<fake_scheduler> clock_;
  std::chrono::milliseconds takes_;
};

// A flight reads each clock once per synchronous chain (its start, an attempt's end) and
// shares the reading. An answer handled inside the chain that sent it is a chain of its own:
// timed by a reading taken after the clock moved, not by the sending chain's.
TEST(client_clock_test, AnAnswerGivenInsideTheSendIsTimedByAReadingOfItsOwn) {
  asio::io_context io;
  auto clock = std::make_shared<fake_scheduler>(io.get_executor());
  auto store = std::make_shared<memory_intent_store>();
  client_options o;
  o.base_url = "http://api.test";
  o.store = store;
  client c(io.get_executor(), o, std::make_shared<inline_transport>(clock, 250ms), clock);
  const auto order = orders::create(one_item_order());
  std::optional<outcome> got;
  c.async_submit(order, [&](outcome out) { got = std::move(out); });
  io.run();
  ASSERT_TRUE(got);
  EXPECT_EQ(got->kind(), outcome_kind::succeeded);
  EXPECT_EQ(got->elapsed(), 250ms);
  const auto record = store->find(order.key());
  ASSERT_TRUE(record);
  ASSERT_TRUE(record->finished_at);
  EXPECT_EQ(*record->finished_at - record->created_at, 250ms);
}

TEST(intent_test, KeyIsMintedOnceAndRestoredUnchanged) {
  auto a = orders::create(one_item_order(), key_format::uuid_v7);
  auto restored = intent::restore(a.key(), a.op(), a.payload(), a.lookup());
  EXPECT_EQ(restored.key(), a.key());
  EXPECT_EQ(restored.body(), a.body());
  EXPECT_TRUE(restored.same_request(a));
  EXPECT_EQ(a.lookup(), orders::order_created_lookup("m-1"));
  EXPECT_EQ(a.lookup().business_id, "m-1");
  EXPECT_EQ(a.op().path, "/v1/orders");
  EXPECT_EQ(a.key().str()[14], '7');  // the key_format option reaches the key
  auto p = orders::pay("ord_9", {.amount_minor = 10, .currency = "EUR"});
  EXPECT_EQ(p.op().path, "/v1/orders/ord_9/payments");
  EXPECT_EQ(p.lookup(), orders::payment_captured_lookup("ord_9"));
  auto c = orders::cancel("ord_9");
  EXPECT_EQ(c.op().path, "/v1/orders/ord_9/cancel");
  EXPECT_EQ(c.body(), "{}");
}

}  // namespace
}  // namespace idem
