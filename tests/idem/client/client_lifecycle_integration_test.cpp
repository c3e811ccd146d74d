// The app's lifecycle signals with the real client (curl_transport, asio_scheduler) against the
// real mock server over real sockets: offline, nothing reaches the server; online, every order
// is created once; a flush before a suspend leaves the rest open, and a resume creates it once;
// back in the foreground, a write the server holds is sent again under its key, and one order comes
// of it.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "tests/idem/support/live_client.hpp"
#include "tests/support/http/integration.hpp"

namespace idem::test::live {
namespace {

using kit::api_client;
using kit::eventually;
using kit::running_server;
using kit::stat;

// Runs `io` on this thread until `done` holds; the bound only turns a hang into a failure.
template <class Done>
bool run_until(boost::asio::io_context& io, Done done) {
  const auto give_up = std::chrono::steady_clock::now() + 60s;
  io.restart();
  while (!done() && std::chrono::steady_clock::now() < give_up)
    io.run_one_until(give_up);
  return done();
}

TEST(LiveLifecycle, OfflineNothingReachesTheServerAndOnlineEveryOrderIsCreatedOnce) {
  running_server server;
  api_client api{server.port(), tenant};
  boost::asio::io_context io;
  auto options = live_options(server.port());
  options.lifecycle.pause_deadline_while_offline = true;
  options.lifecycle.resume_spread = 100ms;
  client c{io.get_executor(), options};
  std::map<std::string, outcome> outcomes;

  c.set_network(network_status::offline);
  constexpr int count = 20;
  for (int n = 0; n < count; ++n) {
    c.async_submit(orders::create(order_of("m-lift-" + std::to_string(n))),
                   [&outcomes](outcome o) { outcomes[o.key()] = std::move(o); });
  }
  io.poll();  // every submission reaches the point where it would send, and waits there
  EXPECT_TRUE(outcomes.empty());
  EXPECT_EQ(stat(api, "requests"), 0) << "a request left while offline";
  EXPECT_EQ(c.store()->open_intents().size(), static_cast<std::size_t>(count));

  c.set_network(network_status::online);
  ASSERT_TRUE(run_until(io, [&] { return outcomes.size() == count; }));
  for (const auto& [key, o] : outcomes)
    EXPECT_EQ(o.kind(), outcome_kind::succeeded) << key << ": " << o.body();
  const auto stats = api.stats();
  EXPECT_EQ(stats["orders"], count) << stats.dump();
  EXPECT_EQ(stats["max_keys_per_business_id"], 1) << stats.dump();
  EXPECT_EQ(stats["requests"], count) << "each order should have taken one request";
}

TEST(LiveLifecycle, AFlushBeforeASuspendStopsWhatTheServerHoldsAndKeepsItOpen) {
  running_server server;
  api_client api{server.port(), tenant};
  api.set_faults(only(on_create("delay", {{"delay_ms", 3000}, {"times", 1}})));
  boost::asio::io_context io;
  auto options = live_options(server.port());
  options.deadline.attempt_timeout = 5s;
  client c{io.get_executor(), options};
  const auto slow = orders::create(order_of("m-slow"));
  std::optional<outcome> got;
  c.async_submit(slow, [&got](outcome o) { got = std::move(o); });
  ASSERT_TRUE(eventually([&] {
    io.restart();
    io.poll();
    return stat(api, "faults_injected") >= 1;
  }));

  std::optional<flush_report> report;
  c.async_flush(50ms, [&report](flush_report r) { report = r; });
  ASSERT_TRUE(run_until(io, [&] { return report.has_value(); }));

  EXPECT_EQ(report->stopped, 1u);
  EXPECT_FALSE(report->store_error);
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->kind(), outcome_kind::unresolved) << "it was at the server: never not_sent";
  const auto record = c.store()->find(slow.key());
  ASSERT_TRUE(record.has_value());
  EXPECT_TRUE(record->is_open());
  EXPECT_TRUE(record->maybe_sent());

  // The next session resumes it under the same key: one order, whatever the first did.
  std::optional<outcome> resumed;
  c.async_submit(record->what, [&resumed](outcome o) { resumed = std::move(o); });
  ASSERT_TRUE(run_until(io, [&] { return resumed.has_value(); }));
  EXPECT_EQ(resumed->kind(), outcome_kind::succeeded) << resumed->body();
  expect_one_order(api.stats());
}

TEST(LiveLifecycle, ForegroundResendsAWriteTheServerHoldsAndTheOrderIsCreatedOnce) {
  running_server server;
  api_client api{server.port(), tenant};
  api.set_faults(only(on_create("delay", {{"delay_ms", 1500}, {"times", 1}})));
  boost::asio::io_context io;
  auto options = live_options(server.port());
  options.deadline.attempt_timeout = 5s;
  options.lifecycle.resume_spread = 10ms;
  client c{io.get_executor(), options};
  const auto order = orders::create(order_of("m-suspended"));
  std::optional<outcome> got;
  c.async_submit(order, [&got](outcome o) { got = std::move(o); });

  // The POST is at the server, which holds it; then the app comes back to the foreground.
  ASSERT_TRUE(eventually([&] {
    io.restart();
    io.poll();
    return stat(api, "faults_injected") >= 1;
  }));
  c.on_foreground();
  ASSERT_TRUE(run_until(io, [&] { return got.has_value(); }));

  EXPECT_EQ(got->kind(), outcome_kind::succeeded) << got->body();
  EXPECT_EQ(got->key(), order.key().str());
  EXPECT_GE(got->attempts(), 2u) << "the write in flight was not sent again";
  const auto stats = api.stats();
  expect_one_order(stats);
  EXPECT_GE(stats["requests"], 2);
}

}  // namespace
}  // namespace idem::test::live
