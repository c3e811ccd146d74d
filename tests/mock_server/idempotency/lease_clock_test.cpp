// Leases are measured on a monotonic clock (plus the admin offset), not on the wall clock: a wall
// clock stepped forward (NTP, an operator) used to expire the lease of a running or crashed
// executor at once and let a retry take over; one stepped back extended it.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <string>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using namespace std::chrono_literals;

class LeaseClock : public ::testing::Test {
 protected:
  // Read by the server's thread, moved by the test's.
  std::atomic<std::int64_t> wall_step_ms_{0};
  running_server server_{options()};
  api_client api_{server_.port()};

  mock::server_options options() {
    auto o = test_server_options();
    o.clocks.wall = [this] {
      return std::chrono::system_clock::now() + std::chrono::milliseconds(wall_step_ms_.load());
    };
    return o;
  }

  void crash_a_create() {
    api_.set_faults(only(on_create("crash_during_processing", {{"times", 1}})));
    auto crashed = api_.post("/v1/orders", "k-1", order_body("m-1"));
    ASSERT_EQ(crashed.ec, std::errc::connection_reset) << crashed.ec.message();
  }
};

TEST_F(LeaseClock, WallClockSteppedForwardDoesNotEndALease) {
  ASSERT_NO_FATAL_FAILURE(crash_a_create());
  wall_step_ms_ = std::chrono::milliseconds(2h).count();

  auto retry = api_.post("/v1/orders", "k-1", order_body("m-1"));
  EXPECT_TRUE(is_problem(retry, 409, "idempotency-request-in-progress"));
}

TEST_F(LeaseClock, WallClockSteppedBackDoesNotExtendALease) {
  ASSERT_NO_FATAL_FAILURE(crash_a_create());
  wall_step_ms_ = -std::chrono::milliseconds(2h).count();
  api_.advance_clock(31);  // the admin clock moves lease time: the 30 s lease is over

  auto retry = api_.post("/v1/orders", "k-1", order_body("m-1"));
  EXPECT_TRUE(has_status(retry, 201));
  EXPECT_TRUE(replayed_header_is(retry, "false"));  // taken over and executed
}

}  // namespace
}  // namespace idem::kit
