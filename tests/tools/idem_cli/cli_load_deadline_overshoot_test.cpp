// idem-cli load's deadline overshoot (load_run with a deadline, summary.cpp): which intents are
// measured and how the summary reports them. In virtual time; no value is a timing assertion.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <sstream>
#include <string>

#include "idem/client.hpp"
#include "idem/testing/fake_scheduler.hpp"
#include "idem/testing/fake_transport.hpp"
#include "idem_cli/client_settings.hpp"
#include "idem_cli/load/load_run.hpp"
#include "idem_cli/summary.hpp"

namespace idem::cli {
namespace {

using namespace std::chrono_literals;
using idem::kit::fake_reply;
using idem::kit::fake_scheduler;
using idem::kit::fake_transport;

class LoadDeadlineOvershootTest : public ::testing::Test {
 protected:
  // Every request (writes and lookups) answered by `answer`; the run waits for its end.
  load_summary run(std::size_t orders, std::chrono::milliseconds deadline,
                   std::function<fake_reply()> answer) {
    net_->respond([answer](const http_request&) { return answer(); });
    const load_args args{
        .common = {.url = "http://shop.test", .token = "t"}, .orders = orders, .concurrency = 4};
    load_run r(
        load_plan(args), args.concurrency, client_, bar_, [this] { ++finished_; }, deadline);
    r.start();
    io_.run();
    EXPECT_EQ(finished_, 1);
    return r.summary();
  }

  static fake_reply never_in_time() {
    fake_reply r = idem::kit::reply(201, R"({"id":"ord_1"})");
    r.takes = 1h;  // past every attempt's timeout: each attempt ends unknown
    return r;
  }

  boost::asio::io_context io_;
  std::shared_ptr<fake_scheduler> clock_ = std::make_shared<fake_scheduler>(io_.get_executor());
  std::shared_ptr<fake_transport> net_ =
      std::make_shared<fake_transport>(io_.get_executor(), clock_);
  client client_{io_.get_executor(), client_settings("http://shop.test", "t", 2s), net_, clock_};
  std::ostringstream progress_out_;
  progress_bar bar_{progress_out_, false};
  int finished_ = 0;
};

TEST_F(LoadDeadlineOvershootTest, EveryIntentThatRanOutOfItsDeadlineIsMeasured) {
  const load_summary s = run(/*orders=*/6, 2s, never_in_time);
  EXPECT_EQ(s.counts.unresolved, 6u);
  EXPECT_EQ(s.overshoot.intents, 6u);
  EXPECT_LE(s.overshoot.p50, s.overshoot.p99);
  EXPECT_LE(s.overshoot.p99, s.overshoot.max);

  const auto j = to_json(s);
  ASSERT_TRUE(j.contains("deadline_overshoot_ms"));
  const auto& late = j["deadline_overshoot_ms"];
  EXPECT_EQ(late["intents"], 6);
  for (const char* field : {"p50", "p99", "max"})
    EXPECT_TRUE(late[field].is_number()) << field;
}

TEST_F(LoadDeadlineOvershootTest, IntentsDecidedByAnAnswerAreNotMeasured) {
  const load_summary s =
      run(/*orders=*/5, 2s, [] { return idem::kit::reply(201, R"({"id":"ord_1"})"); });
  EXPECT_EQ(s.counts.succeeded, 5u);
  EXPECT_EQ(s.overshoot.intents, 0u);
  EXPECT_FALSE(to_json(s).contains("deadline_overshoot_ms"));
}

TEST_F(LoadDeadlineOvershootTest, WithoutADeadlineNothingIsMeasured) {
  const load_summary s = run(/*orders=*/3, 0ms, never_in_time);
  EXPECT_EQ(s.counts.unresolved, 3u);
  EXPECT_EQ(s.overshoot.intents, 0u);
  EXPECT_FALSE(to_json(s).contains("deadline_overshoot_ms"));
}

TEST(LoadSummaryJson, OvershootIsInMillisecondsWithThreeDecimals) {
  load_summary s;
  s.overshoot = {.intents = 3, .p50 = 1'234us, .p99 = -20us, .max = 40'001us};
  const auto late = to_json(s)["deadline_overshoot_ms"];
  EXPECT_DOUBLE_EQ(late["p50"].get<double>(), 1.234);
  EXPECT_DOUBLE_EQ(late["p99"].get<double>(), -0.02);
  EXPECT_DOUBLE_EQ(late["max"].get<double>(), 40.001);
}

}  // namespace
}  // namespace idem::cli
