// The fault-injecting proxy (tests/support/servers/fault_proxy.hpp) in front of the in-process mock
// server: each fault does what it says, seen from the client's side and from the server's books.
#include "tests/support/servers/fault_proxy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <system_error>
#include <vector>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

using namespace std::chrono_literals;

fault_proxy_options in_front_of(const running_server& server) {
  return {.upstream_port = server.port()};
}

std::vector<proxy_fault> draws(fault_plan plan, int n) {
  std::vector<proxy_fault> out;
  for (int i = 0; i < n; ++i)
    out.push_back(plan.next());
  return out;
}

// The server executed the create for `key` once, though its client never got the answer: one
// order on the books, and the same request sent again directly is a replay of it.
void expect_executed_once(api_client& direct, const std::string& key,
                          const std::string& merchant_order_id) {
  EXPECT_EQ(stat(direct, "orders"), 1);
  const auto replay = direct.post("/v1/orders", key, order_body(merchant_order_id));
  ASSERT_TRUE(replay.ok()) << replay.ec.message();
  EXPECT_EQ(replay.res.status, 201);
  EXPECT_EQ(replay.res.header("Idempotent-Replayed"), "true");
  EXPECT_EQ(stat(direct, "orders"), 1);
}

TEST(FaultPlan, TheSameSeedDrawsTheSameFaults) {
  const fault_proxy_options o{
      .drop_after_answer = 0.2, .drop_while_running = 0.2, .delay_answer = 0.2, .seed = 42};
  const auto first = draws(fault_plan{o}, 1000);
  EXPECT_EQ(first, draws(fault_plan{o}, 1000));
  for (auto f : {proxy_fault::none, proxy_fault::drop_after_answer, proxy_fault::drop_while_running,
                 proxy_fault::delay_answer}) {
    EXPECT_NE(std::count(first.begin(), first.end(), f), 0) << to_string(f);
  }
  auto other = o;
  other.seed = 43;
  EXPECT_NE(first, draws(fault_plan{other}, 1000));
}

TEST(FaultPlan, CertainAndImpossibleFaults) {
  EXPECT_EQ(draws(fault_plan{{}}, 100), std::vector<proxy_fault>(100, proxy_fault::none));
  EXPECT_EQ(draws(fault_plan{{.delay_answer = 1.0}}, 100),
            std::vector<proxy_fault>(100, proxy_fault::delay_answer));
}

TEST(FaultProxy, WithoutFaultsPassesEveryRequestThroughOneKeepAliveConnection) {
  running_server server;
  fault_proxy proxy{in_front_of(server)};
  api_client via_proxy{proxy.port()};

  const auto created = via_proxy.post("/v1/orders", "k-pass", order_body("m-pass"));
  ASSERT_TRUE(created.ok()) << created.ec.message();
  EXPECT_EQ(created.res.status, 201) << created.res.body;
  const auto found = via_proxy.get("/v1/orders?merchant_order_id=m-pass");
  ASSERT_TRUE(found.ok()) << found.ec.message();
  EXPECT_EQ(found.res.status, 200);
  EXPECT_EQ(found.res.json()["data"].size(), 1u) << found.res.body;

  EXPECT_EQ(via_proxy.raw().connections_opened(), 1);
  const auto c = proxy.counters();
  EXPECT_EQ(c.requests, 2u);
  EXPECT_EQ(c.faults(), 0u);
  EXPECT_EQ(c.upstream_errors, 0u);
}

TEST(FaultProxy, DropAfterAnswerLosesTheAnswerOfARequestTheServerExecuted) {
  running_server server;
  fault_proxy proxy{{.upstream_port = server.port(), .drop_after_answer = 1.0}};
  api_client via_proxy{proxy.port()};
  api_client direct{server.port()};

  const auto lost = via_proxy.post("/v1/orders", "k-drop", order_body("m-drop"));

  EXPECT_FALSE(lost.ok()) << "the client got an answer: " << lost.res.status;
  EXPECT_EQ(proxy.counters().drop_after_answer, 1u);
  EXPECT_EQ(proxy.counters().answers_dropped, 1u);
  // The proxy had the answer before it closed: the order was committed.
  expect_executed_once(direct, "k-drop", "m-drop");
}

TEST(FaultProxy, DropWhileRunningClosesBeforeTheAnswerAndLetsTheHandlerFinish) {
  running_server server;
  api_client direct{server.port()};
  // The server takes 3 s; the client waits 1.5 s for an answer. A connection closed while the
  // server works is an error, not a timeout, and the work still completes.
  direct.set_faults(only(on_create("delay", {{"delay_ms", 3000}, {"times", 1}})));
  fault_proxy proxy{{.upstream_port = server.port(), .drop_while_running = 1.0}};
  api_client via_proxy{proxy.port()};

  const auto lost = via_proxy.post("/v1/orders", "k-running", order_body("m-running"), {}, 1500ms);

  ASSERT_FALSE(lost.ok()) << "the client got an answer: " << lost.res.status;
  EXPECT_NE(lost.ec, std::make_error_code(std::errc::timed_out))
      << "the proxy waited for the answer instead of closing while the server ran";
  EXPECT_EQ(proxy.counters().drop_while_running, 1u);
  ASSERT_TRUE(eventually([&] { return proxy.counters().answers_dropped == 1; }))
      << "the proxy did not read the server's answer to its end";
  EXPECT_EQ(proxy.counters().in_flight, 0u);
  expect_executed_once(direct, "k-running", "m-running");
}

TEST(FaultProxy, DelayAnswerHoldsTheAnswerThenReturnsItWhole) {
  running_server server;
  fault_proxy proxy{{.upstream_port = server.port(), .delay_answer = 1.0, .delay = 1500ms}};
  api_client via_proxy{proxy.port()};
  api_client direct{server.port()};

  // Held far longer than this client waits: its request times out, though the order exists.
  const auto held = via_proxy.post("/v1/orders", "k-held", order_body("m-held"), {}, 300ms);
  EXPECT_EQ(held.ec, std::make_error_code(std::errc::timed_out)) << held.res.status;
  EXPECT_TRUE(eventually([&] { return stat(direct, "orders") == 1; }));

  // A patient client gets the held answer intact.
  api_client patient{proxy.port()};
  const auto late = patient.post("/v1/orders", "k-late", order_body("m-late"), {}, 30s);
  ASSERT_TRUE(late.ok()) << late.ec.message();
  EXPECT_EQ(late.res.status, 201) << late.res.body;
  EXPECT_EQ(late.res.json()["merchant_order_id"], "m-late");
  EXPECT_EQ(proxy.counters().delay_answer, 2u);
  EXPECT_EQ(proxy.counters().answers_dropped, 0u);
}

TEST(FaultProxy, ReadsAreNotFaultedUnlessAsked) {
  running_server server;
  fault_proxy proxy{{.upstream_port = server.port(), .drop_after_answer = 1.0}};
  api_client via_proxy{proxy.port()};

  const auto found = via_proxy.get("/v1/orders?merchant_order_id=m-none");

  ASSERT_TRUE(found.ok()) << found.ec.message();
  EXPECT_EQ(found.res.status, 200);
  EXPECT_EQ(proxy.counters().faults(), 0u);
}

TEST(FaultProxy, AnUpstreamThatIsGoneIsABadGateway) {
  std::uint16_t gone = 0;
  {
    running_server server;
    gone = server.port();
  }
  fault_proxy proxy{{.upstream_port = gone}};
  api_client via_proxy{proxy.port()};

  const auto r = via_proxy.post("/v1/orders", "k-gone", order_body("m-gone"));

  ASSERT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 502);
  EXPECT_EQ(proxy.counters().upstream_errors, 1u);
}

}  // namespace
}  // namespace idem::kit
