// Every request that leaves the client is an attempt the client knows (contract section 8),
// measured end to end: the real client and transport against a loopback backend that drops
// kept-alive connections under some of its POSTs, unanswered. libcurl would send each of those
// again on a fresh connection inside one attempt; the transport refuses, and the client retries
// by its own policy. So the POSTs the backend saw equal the attempts the outcomes report.

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <functional>
#include <iostream>
#include <numeric>
#include <vector>

#include "tests/idem/support/live_client.hpp"
#include "tests/support/servers/recording_listener.hpp"

namespace idem::test::live {
namespace {

TEST(LiveClientResend, ThePostsTheBackendSawAreTheAttemptsTheOutcomesCount) {
  constexpr std::size_t intents = 500;
  std::atomic<std::size_t> kept_posts{0};
  std::atomic<std::size_t> dropped{0};
  // Every third POST that arrives on a kept-alive connection dies with it.
  kit::recording_listener backend(
      [](const std::string& head) {
        if (head.starts_with("GET ")) return kit::http_answer(200, R"({"data":[]})");
        return kit::http_answer(201, R"({"id":"ord_1"})");
      },
      {.close_unanswered = [&](std::size_t on_connection, const std::string& head) {
        if (on_connection < 2 || !head.starts_with("POST ")) return false;
        if (++kept_posts % 3 != 0) return false;
        ++dropped;
        return true;
      }});

  auto options = live_options(backend.port());
  options.deadline.total = 30s;
  boost::asio::io_context io;
  std::vector<outcome> outcomes;
  {
    client c{io.get_executor(), options};
    // Eight in flight, each next one submitted as one ends, so that connections are kept and
    // reused (all at once, every intent would open a connection of its own).
    std::size_t next = 0;
    std::function<void()> submit_next = [&] {
      if (next == intents) return;
      c.async_submit(orders::create(order_of("resend-" + std::to_string(next++))), [&](outcome o) {
        outcomes.push_back(std::move(o));
        submit_next();
      });
    };
    for (int k = 0; k < 8; ++k)
      submit_next();
    const auto give_up = std::chrono::steady_clock::now() + 120s;
    while (outcomes.size() < intents && std::chrono::steady_clock::now() < give_up) {
      io.run_one_until(give_up);
    }
  }
  io.restart();
  io.poll();
  ASSERT_EQ(outcomes.size(), intents) << "the submissions never completed";

  const auto attempts =
      std::accumulate(outcomes.begin(), outcomes.end(), std::size_t{0},
                      [](std::size_t sum, const outcome& o) { return sum + o.attempts(); });
  std::size_t succeeded = 0;
  for (const auto& o : outcomes)
    succeeded += o.kind() == outcome_kind::succeeded ? 1 : 0;
  EXPECT_GT(dropped.load(), 0u) << "no kept-alive connection died: the test proves nothing";
  EXPECT_EQ(backend.heads_starting("POST ").size(), attempts)
      << dropped.load() << " connections died under a POST";
  EXPECT_EQ(succeeded, intents);
  std::cout << "[ measure ] " << intents << " intents, " << dropped.load()
            << " kept-alive connections dropped under a POST, "
            << backend.heads_starting("POST ").size() << " POSTs seen, " << attempts
            << " attempts counted\n";
}

}  // namespace
}  // namespace idem::test::live
