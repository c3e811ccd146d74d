// The curl transport's timer (src/transport/curl_timer.hpp): curl's timeouts on an Asio executor
// with as few timer operations as possible, and never a missed or early action. Waits are on
// events, never on durations: the long expiries below are there only so that they never come.

#include "transport/curl_timer.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <memory>

#include "tests/idem/support/send_and_wait.hpp"

namespace idem::detail {
namespace {

using namespace std::chrono_literals;
using test::run_until;

constexpr long never_ms = 3'600'000;  // an hour: never comes during a test

class curl_timer_test : public ::testing::Test {
 protected:
  boost::asio::io_context io_;
  int due_ = 0;
  std::shared_ptr<int> owner_ = std::make_shared<int>(0);  // stands for the transport
  curl_timer timer_{io_.get_executor(), [this] { ++due_; }};
};

TEST_F(curl_timer_test, ZeroTimeoutIsOnePostedActionNotATimerWait) {
  timer_.set(0, owner_);
  timer_.set(0, owner_);  // curl asking again before the first ran: still one action
  EXPECT_EQ(due_, 0);     // never from inside the callback: that would re-enter curl
  io_.poll();
  EXPECT_EQ(due_, 1);
  EXPECT_EQ(timer_.posts(), 1U);
  EXPECT_EQ(timer_.waits_started(), 0U);
}

TEST_F(curl_timer_test, ExpiryMovedLaterKeepsThePendingWait) {
  timer_.set(never_ms, owner_);
  timer_.set(never_ms + 1'000, owner_);
  timer_.set(never_ms + 2'000, owner_);
  EXPECT_EQ(timer_.waits_started(), 1U);
}

TEST_F(curl_timer_test, ExpiryMovedEarlierRearms) {
  timer_.set(never_ms, owner_);
  timer_.set(never_ms / 2, owner_);
  EXPECT_EQ(timer_.waits_started(), 2U);
}

TEST_F(curl_timer_test, DueWhenTheExpiryComes) {
  timer_.set(1, owner_);
  ASSERT_TRUE(run_until(io_, [&] { return due_ == 1; }));
  EXPECT_EQ(timer_.waits_started(), 1U);
}

TEST_F(curl_timer_test, WaitThatFiresBeforeTheMovedExpiryWaitsAgainInsteadOfActing) {
  timer_.set(1, owner_);
  timer_.set(never_ms, owner_);  // later: the 1 ms wait stays, fires, and must not act
  ASSERT_TRUE(run_until(io_, [&] { return timer_.waits_started() == 2U; }));
  io_.poll();
  EXPECT_EQ(due_, 0);
}

TEST_F(curl_timer_test, ZeroTimeoutSupersededBeforeThePostRanDoesNotAct) {
  timer_.set(0, owner_);
  timer_.set(never_ms, owner_);  // curl changed its mind before the action ran
  io_.poll();
  EXPECT_EQ(due_, 0);
}

TEST_F(curl_timer_test, NoTimeoutCancelsThePendingWaitSoTheIoContextGoesIdle) {
  timer_.set(never_ms, owner_);
  timer_.set(-1, owner_);
  // Returns at once when nothing is left to do; the bound only turns a hang into a failure.
  io_.run_for(test::hang_limit);
  EXPECT_TRUE(io_.stopped()) << "a cancelled timeout kept the io_context busy";
  EXPECT_EQ(due_, 0);
}

TEST_F(curl_timer_test, StopEndsEveryPendingWaitAndPost) {
  timer_.set(0, owner_);
  timer_.set(never_ms, owner_);
  timer_.set(1, owner_);
  timer_.stop();
  timer_.set(0, owner_);  // ignored once stopped
  io_.run_for(test::hang_limit);
  EXPECT_TRUE(io_.stopped());
  EXPECT_EQ(due_, 0);
}

TEST_F(curl_timer_test, PendingWaitsKeepTheirOwnerAlive) {
  std::weak_ptr<int> watched = owner_;
  timer_.set(0, owner_);
  timer_.set(never_ms, owner_);
  owner_.reset();
  EXPECT_FALSE(watched.expired());  // a late completion must find its transport
  timer_.stop();
  io_.run_for(test::hang_limit);
  EXPECT_TRUE(watched.expired());
}

}  // namespace
}  // namespace idem::detail
