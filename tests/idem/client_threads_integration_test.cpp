// An app that runs its io_context on several threads: the client's retry loops and its default
// transport (libcurl's multi handle, which is not thread-safe) must all stay on one strand, the
// client's own or, with client_options::executor_is_serial, the one the app passes.
#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/strand.hpp>
#include <future>
#include <thread>

#include "tests/idem/support/live_client.hpp"

namespace idem::test::live {
namespace {

using testing::api_client;
using testing::running_server;

// Submits 200 intents from this thread while four threads run the io_context; the client gets
// the io_context's executor (its own strand inside) or, with `app_strand`, a strand of it that
// the app says is serial.
void every_intent_once_from_four_threads(bool app_strand) {
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
  options.executor_is_serial = app_strand;
  boost::asio::any_io_executor executor = io.get_executor();
  if (app_strand) executor = boost::asio::make_strand(io);
  {
    client c{executor, options};
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

TEST(LiveClientThreads, AnIoContextRunByFourThreadsGetsEveryIntentThroughExactlyOnce) {
  every_intent_once_from_four_threads(/*app_strand=*/false);
}

TEST(LiveClientThreads, AStrandTheAppSaysIsSerialKeepsFourThreadsSafe) {
  every_intent_once_from_four_threads(/*app_strand=*/true);
}

}  // namespace
}  // namespace idem::test::live
