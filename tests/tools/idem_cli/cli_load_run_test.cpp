// idem-cli load's run (tools/idem_cli/load/load_run.cpp) on a scripted transport: how every intent
// is counted, and what Ctrl-C does to the intents waiting and in flight.
#include <gtest/gtest.h>

#include <algorithm>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <sstream>
#include <string>

#include "idem/client.hpp"
#include "idem/journal_error.hpp"
#include "idem/memory_intent_store.hpp"
#include "idem/orders.hpp"
#include "idem/testing/fake_transport.hpp"
#include "idem_cli/client_settings.hpp"
#include "idem_cli/exit_status.hpp"
#include "idem_cli/load/load_command.hpp"
#include "idem_cli/load/load_run.hpp"
#include "idem_cli/lookup_choice.hpp"
#include "tests/idem/support/unflushable_store.hpp"

namespace idem::cli {
namespace {

using namespace std::chrono_literals;
using idem::kit::fake_reply;
using idem::kit::fake_transport;

bool is_payment(const http_request& r) {
  const std::string suffix = "/payments";
  return r.url.size() > suffix.size() &&
         r.url.compare(r.url.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class LoadRunTest : public ::testing::Test {
 protected:
  // Creates answer 201 with a fresh order id; payments as `payment_reply` says.
  void answer_creates_and(std::function<fake_reply()> payment_reply) {
    net_->respond([this, payment_reply](const http_request& r) {
      if (is_payment(r)) return payment_reply();
      return idem::kit::reply(201, R"({"id":"ord_)" + std::to_string(orders_++) + R"("})");
    });
  }
  void start(std::size_t orders, std::size_t concurrency, bool pay, bool on_demand = false) {
    args_ = {.common = {.url = "http://shop.test", .token = "t"},
             .orders = orders,
             .concurrency = concurrency,
             .pay = pay};
    start(on_demand ? load_plan_on_demand(args_) : load_plan(args_), concurrency);
  }
  void start(run_plan plan, std::size_t concurrency) {
    run_ = std::make_unique<load_run>(std::move(plan), concurrency, client_, bar_,
                                      [this] { ++finished_; });
    run_->start();
    io_.poll();  // everything that can happen without the scripted hangs ending
  }

  boost::asio::io_context io_;
  std::shared_ptr<fake_transport> net_ = std::make_shared<fake_transport>(io_.get_executor());
  client client_{io_.get_executor(), client_settings("http://shop.test", "t", 30s), net_};
  std::ostringstream progress_out_;
  progress_bar bar_{progress_out_, false};
  load_args args_;
  std::unique_ptr<load_run> run_;
  int finished_ = 0;
  int orders_ = 0;
};

TEST_F(LoadRunTest, EveryOrderAndPaymentIsCountedOnceAndTheRunFinishesOnce) {
  answer_creates_and([] { return idem::kit::reply(201, R"({"status":"CAPTURED"})"); });
  start(/*orders=*/5, /*concurrency=*/2, /*pay=*/true);
  EXPECT_EQ(finished_, 1);
  const load_summary s = run_->summary();
  EXPECT_EQ(s.intents, 10u);
  EXPECT_EQ(s.counts.succeeded, 10u);
  EXPECT_EQ(s.attempts, 10u);
  EXPECT_FALSE(s.interrupted);
  EXPECT_EQ(net_->requests("POST").size(), 10u);
}

// A load without a journal keeps nothing of an intent once it ends: not the intent, not its key
// (the memory store's defaults keep the last 10,000 intents and 20,000 keys, which cost the
// load about 3,500 instructions per intent; nothing in a load reads them back).
TEST(LoadStore, AFinishedOrderLeavesNothingInTheLoadsMemoryStore) {
  boost::asio::io_context io;
  auto net = std::make_shared<fake_transport>(io.get_executor());
  net->respond([](const http_request&) { return idem::kit::reply(201, R"({"id":"ord_1"})"); });
  auto store = std::make_shared<memory_intent_store>(load_memory_store_options());
  auto options = client_settings("http://shop.test", "t", 30s);
  options.store = store;
  client c{io.get_executor(), options, net};
  std::ostringstream out;
  progress_bar bar{out, false};
  const load_args args{
      .common = {.url = "http://shop.test", .token = "t"}, .orders = 5, .concurrency = 2};
  int finished = 0;
  load_run run(load_plan_on_demand(args), 2, c, bar, [&] { ++finished; });
  run.start();
  io.poll();
  ASSERT_EQ(finished, 1);
  EXPECT_EQ(run.summary().counts.succeeded, 5u);
  EXPECT_EQ(store->remembered(), 0u);
  ASSERT_EQ(net->requests("POST").size(), 5u);
  for (const auto& r : net->requests("POST")) {
    const std::string* key = find_header(r.headers, "Idempotency-Key");
    ASSERT_NE(key, nullptr);
    const auto parsed = idempotency_key::from_string(*key);
    ASSERT_TRUE(parsed);
    EXPECT_FALSE(store->find(*parsed)) << *key;
  }
}

TEST_F(LoadRunTest, InterruptCancelsWhatIsInFlightAndNeverSendsWhatWaits) {
  net_->respond([](const http_request&) { return idem::kit::hang(); });
  start(/*orders=*/10, /*concurrency=*/3, /*pay=*/false);
  ASSERT_EQ(net_->hanging(), 3u);
  EXPECT_EQ(finished_, 0);

  run_->interrupt();
  io_.poll();
  EXPECT_EQ(finished_, 1);
  const load_summary s = run_->summary();
  EXPECT_TRUE(s.interrupted);
  EXPECT_EQ(s.intents, 10u);
  // The three that were sent may have happened: unresolved, never "failed".
  EXPECT_EQ(s.counts.unresolved, 3u);
  EXPECT_EQ(s.counts.not_sent, 7u);
  EXPECT_EQ(s.counts.succeeded, 0u);
  EXPECT_EQ(net_->requests().size(), 3u);  // nothing was started after the interrupt
  EXPECT_EQ(exit_status_for(s.counts), exit_some_open);
  // What Ctrl-C's notice lists: the keys of exactly the three that were sent.
  ASSERT_EQ(s.unresolved_keys.size(), 3u);
  for (const auto& r : net_->requests()) {
    const std::string* key = find_header(r.headers, "Idempotency-Key");
    ASSERT_NE(key, nullptr);
    EXPECT_NE(std::find(s.unresolved_keys.begin(), s.unresolved_keys.end(), *key),
              s.unresolved_keys.end())
        << *key;
  }
  EXPECT_EQ(s.failures.count(outcome_kind::not_sent, "not started: interrupted"), 7u);
  EXPECT_FALSE(s.journal_error);  // the store made everything durable
}

TEST_F(LoadRunTest, AStoreThatCannotBeFlushedAtTheInterruptIsInTheSummary) {
  // The run ends once the client's shutdown has made the store durable, or said why it could
  // not (a full disk): that is reported, not lost when the process exits.
  auto store = std::make_shared<idem::test::unflushable_store>();
  auto options = client_settings("http://shop.test", "t", 30s);
  options.store = store;
  client c{io_.get_executor(), options, net_};
  net_->respond([](const http_request&) { return idem::kit::hang(); });
  args_ = {.common = {.url = "http://shop.test", .token = "t"},
           .orders = 4,
           .concurrency = 2,
           .pay = false};
  load_run run(load_plan(args_), 2, c, bar_, [this] { ++finished_; });
  run.start();
  io_.poll();
  ASSERT_EQ(net_->hanging(), 2u);

  run.interrupt();
  io_.poll();
  EXPECT_EQ(finished_, 1);
  EXPECT_EQ(store->flushes, 1);
  const load_summary s = run.summary();
  EXPECT_EQ(s.journal_error, journal_errc::full);
  EXPECT_EQ(s.counts.unresolved, 2u);
  EXPECT_EQ(s.counts.not_sent, 2u);
}

TEST_F(LoadRunTest, AnInterruptInTheSameTurnAsTheStartSendsNothing) {
  // Ctrl-C before the client has run the three submissions it was handed (it starts them on its
  // own executor): none goes out, and the run still ends with every intent counted.
  net_->respond([](const http_request&) { return idem::kit::hang(); });
  args_ = {.common = {.url = "http://shop.test", .token = "t"},
           .orders = 5,
           .concurrency = 3,
           .pay = false};
  run_ = std::make_unique<load_run>(load_plan(args_), 3, client_, bar_, [this] { ++finished_; });
  run_->start();
  run_->interrupt();
  io_.poll();
  EXPECT_EQ(finished_, 1);
  const load_summary s = run_->summary();
  EXPECT_EQ(s.intents, 5u);
  EXPECT_EQ(s.counts.not_sent, 5u);
  EXPECT_TRUE(net_->requests().empty());
  EXPECT_TRUE(s.unresolved_keys.empty());
}

TEST_F(LoadRunTest, InterruptCountsThePaymentsOfOrdersNotYetPaidAsNotSent) {
  // Two orders succeed, their payments hang; two more orders still wait.
  answer_creates_and([] { return idem::kit::hang(); });
  start(/*orders=*/4, /*concurrency=*/2, /*pay=*/true);
  ASSERT_EQ(net_->hanging(), 2u);

  run_->interrupt();
  io_.poll();
  ASSERT_EQ(finished_, 1);
  const load_summary s = run_->summary();
  EXPECT_EQ(s.intents, 8u);
  EXPECT_EQ(s.counts.succeeded, 2u);   // the two orders
  EXPECT_EQ(s.counts.unresolved, 2u);  // their payments, cancelled in flight
  EXPECT_EQ(s.counts.not_sent, 4u);    // two waiting orders and their payments
  EXPECT_EQ(s.counts.succeeded + s.counts.unresolved + s.counts.not_sent + s.counts.rejected,
            s.intents);
}

TEST_F(LoadRunTest, AnOnDemandPlanCountsEveryOrderAndPaymentOnce) {
  answer_creates_and([] { return idem::kit::reply(201, R"({"status":"CAPTURED"})"); });
  start(/*orders=*/5, /*concurrency=*/2, /*pay=*/true, /*on_demand=*/true);
  EXPECT_EQ(finished_, 1);
  const load_summary s = run_->summary();
  EXPECT_EQ(s.intents, 10u);
  EXPECT_EQ(s.counts.succeeded, 10u);
  EXPECT_EQ(s.attempts, 10u);
  EXPECT_EQ(net_->requests("POST").size(), 10u);
}

TEST_F(LoadRunTest, InterruptCountsTheOrdersNotYetPlannedAsNotSent) {
  net_->respond([](const http_request&) { return idem::kit::hang(); });
  start(/*orders=*/10, /*concurrency=*/3, /*pay=*/true, /*on_demand=*/true);
  ASSERT_EQ(net_->hanging(), 3u);

  run_->interrupt();
  io_.poll();
  ASSERT_EQ(finished_, 1);
  const load_summary s = run_->summary();
  EXPECT_EQ(s.intents, 20u);
  EXPECT_EQ(s.counts.unresolved, 3u);  // the three orders in flight
  EXPECT_EQ(s.counts.not_sent, 17u);   // their payments, and seven orders with theirs
  EXPECT_EQ(net_->requests().size(), 3u);
}

// A plan whose `more` gives `groups` groups of one create each, having foreseen `foreseen`.
run_plan counted_plan(std::uint64_t foreseen, std::size_t groups) {
  run_plan plan;
  plan.more_intents = foreseen;
  plan.more = [groups, n = std::size_t{0}](std::vector<intent>& ready,
                                           std::vector<planned_intent>&) mutable {
    if (n == groups) return false;
    ++n;
    ready.push_back(intent::create({"POST", "/v1/orders"}, {{"n", n}}));
    return true;
  };
  return plan;
}

TEST_F(LoadRunTest, ARunEndsWhenThePlanEndsBeforeItsForecast) {
  answer_creates_and([] { return idem::kit::reply(201, "{}"); });
  start(counted_plan(/*foreseen=*/5, /*groups=*/2), /*concurrency=*/1);
  ASSERT_EQ(finished_, 1);
  EXPECT_EQ(run_->summary().intents, 2u);
  EXPECT_EQ(run_->summary().counts.succeeded, 2u);
}

TEST_F(LoadRunTest, ARunCountsWhatThePlanAddsBeyondItsForecast) {
  answer_creates_and([] { return idem::kit::reply(201, "{}"); });
  start(counted_plan(/*foreseen=*/1, /*groups=*/4), /*concurrency=*/2);
  ASSERT_EQ(finished_, 1);
  EXPECT_EQ(run_->summary().intents, 4u);
  EXPECT_EQ(run_->summary().counts.succeeded, 4u);
  EXPECT_EQ(net_->requests("POST").size(), 4u);
}

TEST_F(LoadRunTest, ASecondInterruptOrOneAfterTheEndChangesNothing) {
  answer_creates_and([] { return idem::kit::reply(201, "{}"); });
  start(/*orders=*/2, /*concurrency=*/2, /*pay=*/false);
  ASSERT_EQ(finished_, 1);
  run_->interrupt();
  run_->interrupt();
  io_.poll();
  EXPECT_EQ(finished_, 1);
  const load_summary s = run_->summary();
  EXPECT_FALSE(s.interrupted);
  EXPECT_EQ(s.counts.succeeded, 2u);
}

TEST_F(LoadRunTest, BeforeSubmitShapesEveryIntentJustBeforeItIsSent) {
  answer_creates_and([] { return idem::kit::reply(201, R"({"status":"CAPTURED"})"); });
  load_args args{.common = {.url = "http://shop.test", .token = "t"}, .orders = 2, .pay = true};
  run_plan plan = load_plan(args);
  std::vector<std::string> seen;
  plan.before_submit = [&](const intent& i) {
    seen.push_back(i.op().path);
    return with_lookup({.none = true}, i);
  };
  run_ = std::make_unique<load_run>(std::move(plan), 2, client_, bar_, [this] { ++finished_; });
  run_->start();
  io_.poll();
  ASSERT_EQ(finished_, 1);
  EXPECT_EQ(run_->summary().counts.succeeded, 4u);
  // The creates and, once bound to their orders, the payments.
  ASSERT_EQ(seen.size(), 4u);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), "/v1/orders"), 2);
}

TEST(LoadPlan, CreatesGoToThePathWithTheChosenLookupAndPaymentsFollowThem) {
  const load_args args{.common = {.url = "http://h", .token = "t", .lookup = {.none = true}},
                       .orders = 2,
                       .pay = true,
                       .path = "/api/v2/orders"};
  const run_plan plan = load_plan(args);
  ASSERT_EQ(plan.ready.size(), 2u);
  for (const auto& i : plan.ready) {
    EXPECT_EQ(i.op().method, "POST");
    EXPECT_EQ(i.op().path, "/api/v2/orders");
    EXPECT_FALSE(i.lookup().enabled());
    EXPECT_EQ(i.lookup().business_id, i.payload()["merchant_order_id"].get<std::string>());
  }
  EXPECT_NE(plan.ready[0].key(), plan.ready[1].key());
  ASSERT_EQ(plan.after.size(), 2u);
  EXPECT_EQ(plan.after[0].depends_on(), plan.ready[0].key().str());
  EXPECT_EQ(plan.url, "http://h");
}

TEST(LoadPlan, ByDefaultCreatesAreTheOrdersApisWithItsLookup) {
  const load_args args{.common = {.url = "http://h", .token = "t"}, .orders = 1};
  const run_plan plan = load_plan(args);
  ASSERT_EQ(plan.ready.size(), 1u);
  const auto& order = plan.ready[0];
  EXPECT_EQ(order.op().path, "/v1/orders");
  EXPECT_EQ(order.lookup(),
            orders::order_created_lookup(order.payload()["merchant_order_id"].get<std::string>()));
  EXPECT_TRUE(plan.after.empty());
}

}  // namespace
}  // namespace idem::cli
