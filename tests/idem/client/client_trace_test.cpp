// The observer's events, as a tracer would turn them into spans: every attempt's start and end
// with its duration, waits told apart by reason, every lookup request with its verdict, each
// naming the intent's key and business id. Virtual time: durations are the scripted ones.
#include <sstream>
#include <string>
#include <vector>

#include "examples/tracing/span_tracer.hpp"
#include "idem/observer.hpp"
#include "tests/idem/support/client_fixture.hpp"

namespace idem::test {
namespace {

using idem::kit::failed;
using idem::kit::reply;

// Every event in order, one line each, with what a span would carry.
class trace_log final : public observer {
 public:
  void on_intent_started(const trace::intent_started& e) override {
    add(e.ids, "intent " + std::string(e.method) + " " + std::string(e.path));
  }
  void on_attempt_started(const trace::attempt_started& e) override {
    add(e.ids, "attempt " + std::to_string(e.attempt));
  }
  void on_attempt_finished(const trace::attempt_finished& e) override {
    add(e.ids, "attempt " + std::to_string(e.attempt) + " ended " + std::string(to_string(e.cls)) +
                   " " + std::to_string(e.status) + (e.transport_error ? " error" : "") + " took " +
                   std::to_string(e.duration.count() / 1000) + "ms");
  }
  void on_wait(const trace::wait& e) override {
    add(e.ids, "wait " + std::string(to_string(e.reason)));
  }
  void on_lookup_started(const trace::lookup_started& e) override {
    add(e.ids, "lookup " + std::to_string(e.request) + " " + std::string(to_string(e.cause)));
  }
  void on_lookup_finished(const trace::lookup_finished& e) override {
    add(e.ids, "lookup " + std::to_string(e.request) + " " + std::string(to_string(e.verdict)) +
                   " " + std::to_string(e.status) + " records " + std::to_string(e.records) +
                   " took " + std::to_string(e.duration.count() / 1000) + "ms");
  }
  void on_intent_finished(const trace::intent_finished& e) override {
    add(e.ids, "end " + std::string(to_string(e.kind)) + " " +
                   (e.reason ? e.reason.message() : "-") + " attempts " +
                   std::to_string(e.attempts));
  }

  std::vector<std::string> lines;
  std::vector<std::string> keys;
  std::vector<std::string> business_ids;

 private:
  void add(const trace::intent_ids& ids, std::string line) {
    lines.push_back(std::move(line));
    keys.emplace_back(ids.key);
    business_ids.emplace_back(ids.business_id);
  }
};

fake_reply taking(fake_reply r, std::chrono::milliseconds t) {
  r.takes = t;
  return r;
}

class client_trace_test : public client_test {
 protected:
  std::shared_ptr<trace_log> log = std::make_shared<trace_log>();
  client_options traced() const {
    auto o = options();
    o.observer = log;
    return o;
  }
};

TEST_F(client_trace_test, AttemptsCarryTheirDurationsAndWaitsTheirReason) {
  auto c = make_client(traced());
  net->respond(
      script({taking(reply(503), 40ms), taking(reply(503, "", {{"Retry-After", "7"}}), 25ms),
              taking(reply(201, R"({"id":"ord_1"})"), 10ms)}));
  const auto order = orders::create(sample_order("m-42"));
  EXPECT_EQ(submit(*c, order).kind(), outcome_kind::succeeded);
  const std::vector<std::string> want{
      "intent POST /v1/orders",
      "attempt 1",
      "attempt 1 ended unknown 503 took 40ms",
      "wait backoff",
      "attempt 2",
      "attempt 2 ended unknown 503 took 25ms",
      "wait retry_after",  // 7 s is longer than any backoff drawn this early
      "attempt 3",
      "attempt 3 ended succeeded 201 took 10ms",
      "end succeeded - attempts 3",
  };
  EXPECT_EQ(log->lines, want);
  EXPECT_EQ(log->keys, std::vector<std::string>(want.size(), order.key().str()));
  EXPECT_EQ(log->business_ids, std::vector<std::string>(want.size(), "m-42"));
}

TEST_F(client_trace_test, AnEmptyRetryBudgetIsAWaitOfItsOwn) {
  auto o = traced();
  // One token: the first retry takes it, the second waits for the trickle.
  o.retry_budget = {.reserve = 1.0, .per_first_attempt = 0.0, .trickle_per_second = 1.0};
  auto c = make_client(o);
  net->respond(script({reply(503), reply(503), reply(201, R"({"id":"ord_1"})")}));
  EXPECT_EQ(submit(*c, orders::create(sample_order())).kind(), outcome_kind::succeeded);
  const auto budget_waits = std::count(log->lines.begin(), log->lines.end(), "wait retry_budget");
  EXPECT_EQ(budget_waits, 1);
  EXPECT_EQ(std::count(log->lines.begin(), log->lines.end(), "wait backoff"), 2);
}

TEST_F(client_trace_test, EachLookupRequestIsReportedWithItsVerdict) {
  auto o = traced();
  o.max_failed_attempts = 1;
  auto c = make_client(o);
  const auto req = sample_order("m-7");
  int gets = 0;
  net->respond(script({failed(transport_failure::unknown)}, [&](const http_request&) {
    if (++gets == 1) return taking(reply(503), 30ms);
    return taking(reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump()), 15ms);
  }));
  const auto order = orders::create(req);
  EXPECT_EQ(submit(*c, order).kind(), outcome_kind::succeeded);
  const std::vector<std::string> want{
      "intent POST /v1/orders",
      "attempt 1",
      "attempt 1 ended unknown 0 error took 0ms",
      "lookup 1 writes_ended",
      "lookup 1 retry 503 records 0 took 30ms",
      "wait lookup_backoff",
      "lookup 2 writes_ended",
      "lookup 2 found 200 records 1 took 15ms",
      "end succeeded - attempts 1",
  };
  EXPECT_EQ(log->lines, want);
  EXPECT_EQ(log->business_ids, std::vector<std::string>(want.size(), "m-7"));
}

TEST_F(client_trace_test, AnUnresolvedEndSaysWhyAndWhatTheLookupGot) {
  auto o = traced();
  o.max_failed_attempts = 1;
  auto c = make_client(o);
  net->respond(
      script({failed(transport_failure::unknown)}, [](const http_request&) { return reply(401); }));
  EXPECT_EQ(submit(*c, orders::create(sample_order())).kind(), outcome_kind::unresolved);
  ASSERT_GE(log->lines.size(), 2u);
  EXPECT_EQ(log->lines[log->lines.size() - 2], "lookup 1 inconclusive 401 records 0 took 0ms");
  EXPECT_EQ(
      log->lines.back(),
      "end unresolved " + make_error_code(errc::lookup_inconclusive).message() + " attempts 1");
}

TEST_F(client_trace_test, TheTracingExampleNestsAttemptsAndLookupsUnderTheIntentsSpan) {
  std::vector<idem_example::span> spans;
  auto tracer = std::make_shared<idem_example::span_tracer>(
      [&](const idem_example::span& s) { spans.push_back(s); }, [this] { return clock->now(); });
  auto o = options();
  o.observer = tracer;
  o.max_failed_attempts = 2;
  auto c = make_client(o);
  const auto req = sample_order("m-9");
  net->respond(script({taking(reply(503), 20ms), failed(transport_failure::unknown)},
                      [&](const http_request&) {
                        return reply(200, nlohmann::json{{"data", {order_json(req)}}}.dump());
                      }));
  const auto order = orders::create(req);
  EXPECT_EQ(submit(*c, order).kind(), outcome_kind::succeeded);

  ASSERT_EQ(spans.size(), 4u);
  const auto& root = spans.back();
  EXPECT_EQ(root.name, "idem.intent");
  EXPECT_EQ(root.parent_id, 0u);
  EXPECT_FALSE(root.error);
  EXPECT_EQ(root.attributes.at("idem.key"), order.key().str());
  EXPECT_EQ(root.attributes.at("idem.business_id"), "m-9");
  EXPECT_EQ(root.attributes.at("idem.outcome"), "succeeded");
  EXPECT_EQ(root.attributes.at("idem.attempts"), "2");
  ASSERT_EQ(root.events.size(), 1u);
  EXPECT_EQ(root.events[0].name, "idem.wait");
  EXPECT_EQ(root.events[0].attributes.at("idem.wait.reason"), "backoff");
  const std::vector<std::string> children{spans[0].name, spans[1].name, spans[2].name};
  EXPECT_EQ(children, (std::vector<std::string>{"idem.attempt", "idem.attempt", "idem.lookup"}));
  for (std::size_t i = 0; i < 3; ++i)
    EXPECT_EQ(spans[i].parent_id, root.id) << spans[i].name;
  EXPECT_EQ(spans[0].attributes.at("http.response.status_code"), "503");
  EXPECT_EQ(spans[0].end - spans[0].start, 20ms);
  EXPECT_TRUE(spans[1].error);  // no answer: error.type says why
  EXPECT_EQ(spans[1].attributes.count("error.type"), 1u);
  EXPECT_EQ(spans[2].attributes.at("idem.lookup.verdict"), "found");
  EXPECT_EQ(spans[2].attributes.at("idem.lookup.records"), "1");
}

}  // namespace
}  // namespace idem::test
