#include "mock_server/state/record_signals.hpp"

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>

namespace idem::mock {
namespace {

namespace asio = boost::asio;
using std::chrono::steady_clock;

// `Prefer: wait` waiters that time out used to stay in the map: one entry per record ever waited
// on, for the life of the server.
TEST(RecordSignals, WaitersThatTimeOutLeaveNothingBehind) {
  asio::io_context io;
  record_signals signals;
  int woke = 0;
  for (std::int64_t id = 1; id <= 100; ++id) {
    asio::co_spawn(
        io,
        [&, id]() -> asio::awaitable<void> {
          co_await signals.wait(id, steady_clock::now());
          ++woke;
        },
        asio::detached);
  }
  io.run();
  EXPECT_EQ(woke, 100);
  EXPECT_EQ(signals.waiting_records(), 0u);
}

TEST(RecordSignals, NotifyWakesTheRecordsWaitersOnlyAndOthersKeepWaiting) {
  asio::io_context io;
  record_signals signals;
  const auto later = steady_clock::now() + std::chrono::hours(1);
  int woke_1 = 0;
  int woke_2 = 0;
  auto waiter = [&](std::int64_t id, int& woke) {
    asio::co_spawn(
        io,
        [&, id]() -> asio::awaitable<void> {
          co_await signals.wait(id, later);
          ++woke;
        },
        asio::detached);
  };
  waiter(1, woke_1);
  waiter(1, woke_1);
  waiter(2, woke_2);
  io.poll();  // every waiter is suspended now
  EXPECT_EQ(signals.waiting_records(), 2u);

  signals.notify(1);
  io.poll();
  EXPECT_EQ(woke_1, 2);
  EXPECT_EQ(woke_2, 0);
  EXPECT_EQ(signals.waiting_records(), 1u);

  signals.notify_all();
  io.poll();
  EXPECT_EQ(woke_2, 1);
  EXPECT_EQ(signals.waiting_records(), 0u);
}

}  // namespace
}  // namespace idem::mock
