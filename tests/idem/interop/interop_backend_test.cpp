// idem against idempotency layers written by others (issue 8, "any backend"): each runs in a
// tiny orders app of tests/interop as a real Node server on loopback, behind the project's
// fault-injecting proxy, and the real client (curl transport) submits a batch of create-order
// intents through it. Whatever the layer's dialect (an HTML 409, no replay marker, Nest-style
// JSON errors), the server's books must show each order executed once, and no intent may be
// reported rejected: every one ends succeeded or, rarely, unresolved.
#include <unistd.h>

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "idem/client.hpp"
#include "idem/orders.hpp"
#include "idem/server_profile.hpp"
#include "tests/support/http/http_client.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/processes/node_app.hpp"
#include "tests/support/servers/fault_proxy.hpp"

namespace idem::test {
namespace {

namespace fs = std::filesystem;
using namespace std::chrono_literals;
using kit::express_idempotency;
using kit::fault_proxy;
using kit::fault_proxy_counters;
using kit::fault_proxy_options;
using kit::http_client;
using kit::interop_backend;
using kit::interop_prerequisite_missing;
using kit::node_app;
using kit::node_idempotency;

struct interop_case {
  const interop_backend* server;
  const char* profile;
};

class InteropBackend : public ::testing::TestWithParam<interop_case> {
 protected:
  void SetUp() override {
    if (auto why = interop_prerequisite_missing(*GetParam().server)) GTEST_SKIP() << *why;
    log_ = fs::temp_directory_path() /
           ("idem-interop-" + GetParam().server->name + "-" + std::to_string(::getpid()) + ".log");
  }
  void TearDown() override {
    if (!log_.empty() && !HasFailure()) fs::remove(log_);
  }
  fs::path log_;
};

client_options options_for(std::uint16_t proxy_port, const std::string& profile) {
  client_options o;
  o.base_url = "http://127.0.0.1:" + std::to_string(proxy_port);
  o.credentials = bearer_token{"tenant-a"};
  o.profile = server_profile::by_name(profile).value();
  // A few seconds per intent: enough for a retry to wait out a 409 with `Retry-After: 1`, short
  // enough that a batch stays well under half a minute.
  o.deadline = {.total = 6s, .lookup_reserve = 1500ms, .min_attempt = 100ms, .attempt_timeout = 1s};
  o.backoff = full_jitter{.base = 20ms, .cap = 300ms};
  o.rng_seed = 11;
  return o;
}

orders::order_request order_number(const std::string& run, int i) {
  return {.merchant_order_id = run + "-" + std::to_string(i),
          .customer_id = "c-" + std::to_string(i % 7),
          .currency = i % 3 == 0 ? "USD" : "EUR",
          .amount_minor = 500 * (1 + i % 4),
          .items = {
              {.sku = "sku-" + std::to_string(i), .quantity = 1 + i % 4, .unit_price_minor = 500}}};
}

nlohmann::json get_json(http_client& http, const std::string& target) {
  const auto r = http.send("GET", target);
  if (!r.ok() || r.res.status != 200) {
    ADD_FAILURE() << "GET " << target << ": " << r.ec.message() << " " << r.res.status << " "
                  << r.res.body;
    return nlohmann::json::object();
  }
  return r.res.json();
}

// What a batch came to: the client's outcomes, the proxy's faults, the server's books.
struct batch {
  int intents = 0;
  int succeeded = 0;
  int replayed = 0;
  int recovered_by_lookup = 0;
  int rejected = 0;
  int not_sent = 0;
  int unresolved = 0;
  int unresolved_with_order = 0;  ///< unresolved, though the server has the order
  int orders_found = 0;           ///< intents whose order the lookup by business id finds
  std::uint64_t attempts = 0;
  std::map<int, int> statuses{};  ///< of every write attempt; 0: no answer
  fault_proxy_counters faults{};
  nlohmann::json stats{};  ///< the app's /_stats
};

// Statuses of every write attempt, to show how the client met the layer's dialect. Runs on the
// client's strand, which run_batch drives on the test's thread.
struct status_tally final : observer {
  std::map<int, int> statuses;
  void on_attempt_finished(const trace::attempt_finished& e) override { ++statuses[e.status]; }
};

constexpr int in_flight = 16;

// Submits `n` create-order intents through the proxy, `in_flight` at a time, then reads the
// server's books directly (not through the proxy) once the proxy has nothing in flight.
batch run_batch(const std::string& run, std::uint16_t app_port, const fault_proxy& proxy,
                client_options options, int n) {
  auto tally = std::make_shared<status_tally>();
  options.observer = tally;
  std::vector<orders::order_request> requests;
  for (int i = 0; i < n; ++i)
    requests.push_back(order_number(run, i));

  batch b{.intents = n};
  std::vector<std::optional<outcome>> outcomes(n);
  boost::asio::io_context io;
  int done = 0;
  {
    client c{io.get_executor(), options};
    int next = 0;
    std::function<void()> start_next = [&] {
      const int i = next++;
      c.async_submit(orders::create(requests[i]), [&, i](outcome o) {
        outcomes[i] = std::move(o);
        ++done;
        if (next < n) start_next();
      });
    };
    for (int k = 0; k < in_flight && next < n; ++k)
      start_next();
    // The bound only turns a hang into a failure: each intent has its deadline.
    const auto give_up = std::chrono::steady_clock::now() + 120s;
    while (done < n && std::chrono::steady_clock::now() < give_up) {
      if (io.run_one_until(give_up) == 0 && io.stopped()) break;
    }
    b.attempts = c.counters().attempts;
  }
  io.restart();
  io.poll();  // lets the transport finish what the client's destruction cancelled
  EXPECT_EQ(done, n) << "some submissions never completed";
  b.statuses = tally->statuses;

  for (const auto& o : outcomes) {
    if (!o) continue;
    switch (o->kind()) {
      case outcome_kind::succeeded:
        ++b.succeeded;
        break;
      case outcome_kind::rejected:
        ++b.rejected;
        ADD_FAILURE() << "rejected: status " << o->status() << " problem '" << o->problem_type()
                      << "' error '" << o->error() << "' body: " << o->body();
        break;
      case outcome_kind::not_sent:
        ++b.not_sent;
        break;
      case outcome_kind::unresolved:
        ++b.unresolved;
        break;
    }
    b.recovered_by_lookup += o->recovered_by_lookup() ? 1 : 0;
    b.replayed += o->replayed() ? 1 : 0;
  }

  // A handler whose answer was dropped may still run: the books are read once it has answered.
  EXPECT_TRUE(kit::eventually([&] { return proxy.counters().in_flight == 0; }));
  b.faults = proxy.counters();
  http_client books{app_port};
  b.stats = get_json(books, "/_stats");
  for (int i = 0; i < n; ++i) {
    const auto found =
        get_json(books, "/v1/orders?merchant_order_id=" + requests[i].merchant_order_id);
    const bool exists = found.contains("data") && found["data"].size() == 1;
    b.orders_found += exists ? 1 : 0;
    if (!outcomes[i]) continue;
    if (outcomes[i]->kind() == outcome_kind::succeeded) {
      EXPECT_TRUE(exists) << requests[i].merchant_order_id << " succeeded but has no order";
    } else if (outcomes[i]->kind() == outcome_kind::unresolved && exists) {
      ++b.unresolved_with_order;
    }
  }
  return b;
}

// One line of figures per run, on stdout and in the test's XML properties.
void report(const std::string& run, const batch& b) {
  std::ostringstream line;
  line << "interop " << run << ": intents " << b.intents << ", proxy requests " << b.faults.requests
       << ", faults drop_after_answer " << b.faults.drop_after_answer << " drop_while_running "
       << b.faults.drop_while_running << " delay_answer " << b.faults.delay_answer
       << ", handler executions " << b.stats.value("executions", -1) << ", orders "
       << b.stats.value("orders", -1) << ", succeeded " << b.succeeded << " (replayed "
       << b.replayed << ")"
       << ", recovered_by_lookup " << b.recovered_by_lookup << ", rejected " << b.rejected
       << ", not_sent " << b.not_sent << ", unresolved " << b.unresolved << " (order exists "
       << b.unresolved_with_order << "), write attempts " << b.attempts << ", statuses";
  for (const auto& [status, count] : b.statuses)
    line << " " << (status == 0 ? std::string{"none"} : std::to_string(status)) << ":" << count;
  std::cout << line.str() << std::endl;
  ::testing::Test::RecordProperty("figures", line.str());
}

// What must hold whatever the layer and the faults: one execution per order, each order created
// once, nothing rejected, nothing reported as not sent.
void expect_exactly_once(const batch& b) {
  EXPECT_EQ(b.stats.value("executions", -1), b.stats.value("orders", -2)) << b.stats.dump();
  EXPECT_EQ(b.stats.value("orders", -1), b.orders_found) << b.stats.dump();
  EXPECT_EQ(b.orders_found, b.succeeded + b.unresolved_with_order);
  EXPECT_EQ(b.stats.value("orders_with_duplicate_merchant_id", -1), 0) << b.stats.dump();
  EXPECT_EQ(b.stats.value("duplicate_attempts", -1), 0) << b.stats.dump();
  EXPECT_EQ(b.rejected, 0);
  EXPECT_EQ(b.not_sent, 0);
  EXPECT_EQ(b.succeeded + b.unresolved, b.intents);
  EXPECT_LE(b.unresolved, b.intents / 10) << "more than a few intents were left unresolved";
  EXPECT_EQ(b.faults.upstream_errors, 0u);
}

TEST_P(InteropBackend, EveryOrderIsExecutedOnceAndNoIntentIsRejected) {
  const auto& [server, profile] = GetParam();
  node_app app{*server, log_};
  fault_proxy proxy{{.upstream_port = app.port(),
                     .drop_after_answer = 0.1,
                     .drop_while_running = 0.1,
                     .delay_answer = 0.1,
                     .delay = 300ms,
                     .seed = 2024}};
  const std::string run = server->name + "-" + profile;

  const auto b = run_batch(run, app.port(), proxy, options_for(proxy.port(), profile), 150);

  report(run, b);
  expect_exactly_once(b);
  // The run proves something only if every kind of fault happened.
  EXPECT_GT(b.faults.drop_after_answer, 0u);
  EXPECT_GT(b.faults.drop_while_running, 0u);
  EXPECT_GT(b.faults.delay_answer, 0u);
  if (HasFailure()) std::cout << "the app's stderr: " << log_ << std::endl;
}

TEST_P(InteropBackend, AnswersLostOverAndOverAreFoundByTheLookup) {
  const auto& [server, profile] = GetParam();
  node_app app{*server, log_};
  fault_proxy proxy{{.upstream_port = app.port(), .drop_after_answer = 0.7, .seed = 7}};
  const std::string run = server->name + "-" + profile + "-lookup";
  // Two lost answers end the writes: the intent is then settled by GET
  // /v1/orders?merchant_order_id=X (orders::create's declarative lookup).
  auto options = options_for(proxy.port(), profile);
  options.max_failed_attempts = 2;

  const auto b = run_batch(run, app.port(), proxy, options, 60);

  report(run, b);
  expect_exactly_once(b);
  EXPECT_GT(b.recovered_by_lookup, 0);
  if (HasFailure()) std::cout << "the app's stderr: " << log_ << std::endl;
}

INSTANTIATE_TEST_SUITE_P(Layers, InteropBackend,
                         ::testing::Values(interop_case{&express_idempotency, "ietf"},
                                           interop_case{&express_idempotency, "generic"},
                                           interop_case{&node_idempotency, "ietf"},
                                           interop_case{&node_idempotency, "generic"}),
                         [](const ::testing::TestParamInfo<interop_case>& info) {
                           return info.param.server->name + "_" + info.param.profile;
                         });

}  // namespace
}  // namespace idem::test
