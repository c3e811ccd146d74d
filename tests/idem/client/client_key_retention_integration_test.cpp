// Keys the server has forgotten (docs/JOURNAL.md, client_options::server_key_retention), with
// the real client against the in-process mock server: an order created on the server whose every
// answer was lost stays unresolved; 25 hours later (server clock advanced past its 24 h key TTL,
// client wall clock moved as far) the same intent is resumed. The server no longer knows the
// key, so re-sending it would execute again, stopped only by the merchant_order_id's unique
// constraint (409 duplicate-business-id, counted in business_id_conflicts). The client must
// instead look the order up first.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>

#include "idem/memory_intent_store.hpp"
#include "idem/scheduler.hpp"
#include "tests/idem/support/live_client.hpp"

namespace idem::test::live {
namespace {

using kit::api_client;
using kit::running_server;

constexpr auto day_and_an_hour = std::chrono::hours{25};

// The production scheduler with its wall clock moved by `offset`: the client believes it is
// that much later (its monotonic clock and its timers are untouched).
class offset_scheduler final : public scheduler {
 public:
  offset_scheduler(boost::asio::any_io_executor ex, std::chrono::system_clock::duration offset)
      : inner_(std::move(ex)), offset_(offset) {}
  [[nodiscard]] clock::time_point now() const override { return inner_.now(); }
  [[nodiscard]] std::chrono::system_clock::time_point wall_now() const override {
    return inner_.wall_now() + offset_;
  }
  // The device's wall clock jumps (a day offline, a long suspend). On the test's one thread.
  void jump(std::chrono::system_clock::duration by) { offset_ += by; }

 protected:
  void wait_impl(clock::duration d,
                 boost::asio::any_completion_handler<signature> handler) override {
    inner_.async_wait(d, std::move(handler));
  }

 private:
  asio_scheduler inner_;
  std::chrono::system_clock::duration offset_;
};

// Like submit_live, with the client's wall clock `offset` ahead.
outcome submit_at(const client_options& options, const intent& i,
                  std::chrono::system_clock::duration offset) {
  boost::asio::io_context io;
  std::optional<outcome> got;
  {
    client c{io.get_executor(), options, nullptr,
             std::make_shared<offset_scheduler>(io.get_executor(), offset)};
    c.async_submit(i, [&](outcome o) { got = std::move(o); });
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (!got && std::chrono::steady_clock::now() < give_up) {
      if (io.run_one_until(give_up) == 0 && io.stopped()) break;
    }
  }
  io.restart();
  io.poll();
  EXPECT_TRUE(got.has_value()) << "the submission never completed";
  return got.value_or(outcome{});
}

class ClientKeyRetention : public ::testing::Test {
 protected:
  // Leaves `order` unresolved although the server created it: the one write allowed executes
  // and its answer is lost, and every lookup is refused until the deadline.
  void leave_unresolved_although_created(const intent& order) {
    api_.set_faults(
        idem::kit::fault_config({on_create("drop_response_after_commit"),
                                 {{"match", {{"method", "GET"}, {"route", "/v1/orders"}}},
                                  {"fault", "status_before_processing"},
                                  {"status", 503}}}));
    client_options first = live_options(server_.port());
    first.store = store_;
    first.max_failed_attempts = 1;  // no second write: a retry would get the replay
    first.deadline = {
        .total = 1500ms, .lookup_reserve = 1000ms, .min_attempt = 100ms, .attempt_timeout = 500ms};
    const outcome o = submit_at(first, order, {});
    ASSERT_EQ(o.kind(), outcome_kind::unresolved) << to_string(o.kind());
    ASSERT_EQ(api_.stats()["orders"], 1);
  }

  // A day and an hour later on both clocks, faults gone: the same intent, submitted again by a
  // client that believes the server keeps keys for `retention`.
  outcome resume_a_day_later(const intent& order, std::chrono::milliseconds retention) {
    api_.advance_clock(std::chrono::duration<double>(day_and_an_hour).count());
    EXPECT_EQ(api_.admin("DELETE", "/_mock/faults").res.status, 204);
    client_options later = live_options(server_.port());
    later.store = store_;
    later.server_key_retention = retention;
    return submit_at(later, order, day_and_an_hour);
  }

  running_server server_;
  api_client api_{server_.port(), tenant};
  // Shared by both clients, as one app's store across a restart of its client.
  std::shared_ptr<memory_intent_store> store_ = std::make_shared<memory_intent_store>();
};

TEST_F(ClientKeyRetention, AnIntentOlderThanTheServersKeyRetentionIsLookedUpNotResent) {
  const intent order = orders::create(order_of("kr-1"));
  leave_unresolved_although_created(order);
  if (HasFatalFailure()) return;

  // Default retention, 24 h (the mock server's --key-ttl) minus the 1 h margin: the intent's
  // first attempt is 25 h old, so the key may be gone and the client asks by business ID first.
  // Were the retention rule missing (or server_key_retention set to, say, 1000 h) the client
  // would re-POST the key; the server, having purged it, would execute again and answer 409
  // duplicate-business-id, and business_id_conflicts would be 1: this test then fails (the
  // next test shows that path).
  const outcome o = resume_a_day_later(order, std::chrono::hours{24});
  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << to_string(o.kind());
  EXPECT_TRUE(o.recovered_by_lookup());
  const auto stats = api_.stats();
  EXPECT_EQ(stats["business_id_conflicts"], 0) << stats.dump();
  expect_one_order(stats);
}

TEST_F(ClientKeyRetention, AClientThatTrustsTooLongARetentionResendsAndTheLookupStillSettlesIt) {
  // The counterpart: the server really forgot the key, so a client told it keeps keys for
  // 1000 h re-sends, meets the business ID's unique constraint, and settles the 409 by lookup
  // (contract section 8: it may be our own order). One order still, but the server saw a second
  // execution attempt under the forgotten key.
  const intent order = orders::create(order_of("kr-2"));
  leave_unresolved_although_created(order);
  if (HasFatalFailure()) return;

  const outcome o = resume_a_day_later(order, std::chrono::hours{1000});
  EXPECT_EQ(o.kind(), outcome_kind::succeeded) << to_string(o.kind());
  EXPECT_TRUE(o.recovered_by_lookup());
  const auto stats = api_.stats();
  EXPECT_EQ(stats["business_id_conflicts"], 1) << stats.dump();
  expect_one_order(stats);
}

// Calls set_network(offline) on `c` when the first attempt ends: the device goes offline
// between a write whose answer was lost and its retry.
class offline_after_first_attempt final : public observer {
 public:
  void on_attempt_finished(const trace::attempt_finished&) override {
    if (finished++ == 0 && c) c->set_network(network_status::offline);
  }
  client* c = nullptr;
  int finished = 0;
};

TEST_F(ClientKeyRetention, AKeyThatAgesPastRetentionWhileOfflineIsLookedUpBeforeItsRetry) {
  // The key-age rule before every write, live: attempt 1 executes and its answer is lost; the
  // device is offline for a day (deadline paused), and the server forgets the key meanwhile.
  // Back online, the retry would execute again; the client looks the order up first.
  api_.set_faults(only(on_create("drop_response_after_commit", {{"times", 1}})));
  auto options = live_options(server_.port());
  options.lifecycle.pause_deadline_while_offline = true;
  options.lifecycle.resume_spread = std::chrono::milliseconds{0};
  auto seen = std::make_shared<offline_after_first_attempt>();
  options.observer = seen;
  boost::asio::io_context io;
  auto clock = std::make_shared<offset_scheduler>(io.get_executor(), std::chrono::hours{0});
  std::optional<outcome> got;
  {
    client c{io.get_executor(), options, nullptr, clock};
    seen->c = &c;
    c.async_submit(orders::create(order_of("kr-3")), [&](outcome o) { got = std::move(o); });
    const auto give_up = std::chrono::steady_clock::now() + 60s;
    while (seen->finished == 0 && !got && std::chrono::steady_clock::now() < give_up) {
      io.run_one_until(give_up);
    }
    ASSERT_EQ(seen->finished, 1);
    // A day later on both sides; then the network is back.
    api_.advance_clock(std::chrono::duration<double>(day_and_an_hour).count());
    clock->jump(day_and_an_hour);
    c.set_network(network_status::online);
    while (!got && std::chrono::steady_clock::now() < give_up) {
      io.run_one_until(give_up);
    }
    seen->c = nullptr;
  }
  io.restart();
  io.poll();
  ASSERT_TRUE(got.has_value());
  EXPECT_EQ(got->kind(), outcome_kind::succeeded) << to_string(got->kind());
  EXPECT_TRUE(got->recovered_by_lookup());
  const auto stats = api_.stats();
  EXPECT_EQ(stats["business_id_conflicts"], 0) << "the retry went out under a forgotten key";
  expect_one_order(stats);
}

}  // namespace
}  // namespace idem::test::live
