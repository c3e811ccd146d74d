// An app that runs its io_context on several threads: the client's retry loops and its default
// transport (libcurl's multi handle, which is not thread-safe) must all stay on one strand.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <future>
#include <thread>

#include "tests/idem/support/live_client.hpp"

namespace idem::test::live {
namespace {

using kit::api_client;
using kit::running_server;

TEST(LiveClientThreads, AnIoContextRunByFourThreadsGetsEveryIntentThroughExactlyOnce) {
  running_server server;
  api_client api{server.port(), tenant};
  constexpr int intents = 200;
  boost::asio::io_context io;
  auto work = boost::asio::make_work_guard(io);
  std::vector<std::thread> threads;
  for (int n = 0; n < 4; ++n)
    threads.emplace_back([&io] { io.run(); });

  std::atomic<int> succeeded{0}, done{0};
  std::promise<void> all_done;
  // What is checked is that every intent gets through once, not how fast: the deadline is wide
  // enough for 200 intents at once on a starved machine or under qemu-user (scripts/arm64.sh),
  // where the whole run takes several seconds.
  auto options = live_options(server.port());
  options.deadline.total = 50s;
  options.deadline.attempt_timeout = 10s;
  {
    client c{io.get_executor(), options};
    for (int n = 0; n < intents; ++n) {
      // Submitted from this thread while four others run the loop.
      c.async_submit(orders::create(order_of("m-threads-" + std::to_string(n))), [&](outcome o) {
        if (o.kind() == outcome_kind::succeeded) ++succeeded;
        if (++done == intents) all_done.set_value();
      });
    }
    ASSERT_EQ(all_done.get_future().wait_for(120s), std::future_status::ready);
  }
  work.reset();
  for (auto& t : threads)
    t.join();

  EXPECT_EQ(succeeded.load(), intents);
  const auto stats = api.stats();
  EXPECT_EQ(stats["orders"], intents) << stats.dump();
  EXPECT_EQ(stats["max_keys_per_business_id"], 1) << stats.dump();
}

}  // namespace
}  // namespace idem::test::live
