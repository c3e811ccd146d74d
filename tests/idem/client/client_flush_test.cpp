// Before the app is suspended (client::async_flush) and when it closes (async_shutdown): what
// can finish finishes, the rest is stopped honestly and stays open in the store with its key,
// and the report comes only once the store has made everything durable.

#include "idem/journal_error.hpp"
#include "idem/memory_intent_store.hpp"
#include "idem/sqlite_journal.hpp"
#include "tests/idem/support/client_fixture.hpp"
#include "tests/idem/support/unflushable_store.hpp"
#include "tests/support/temp_dir.hpp"

namespace idem::test {
namespace {

using idem::kit::hang;
using idem::kit::reply;

class client_flush_test : public client_test {
 protected:
  client_options with_store(std::shared_ptr<intent_store> s) {
    auto o = options();
    o.store = std::move(s);
    return o;
  }
  void submit_async(client& c, const intent& i) {
    c.async_submit(i, [this, key = i.key().str()](outcome o) { outcomes[key] = std::move(o); });
  }
  // Virtual time moves only when the test says (auto-advance would jump to the flush's own
  // deadline as soon as it is the only wait queued).
  void use_manual_clock() {
    clock = std::make_shared<fake_scheduler>(io.get_executor(), fake_scheduler::mode::manual);
    net = std::make_shared<fake_transport>(io.get_executor(), clock);
  }
  std::shared_ptr<memory_intent_store> store = std::make_shared<memory_intent_store>();
  std::map<std::string, outcome> outcomes;
  std::optional<flush_report> report;
};

TEST_F(client_flush_test, WithNothingInFlightTheFlushCompletesAtOnce) {
  auto c = make_client(with_store(store));
  c->async_flush(5s, [this](flush_report r) { report = r; });
  drain();
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->finished, 0u);
  EXPECT_EQ(report->stopped, 0u);
  EXPECT_FALSE(report->store_error);
  EXPECT_EQ(clock->elapsed(), 0s) << "the flush waited with nothing to wait for";
}

TEST_F(client_flush_test, WhatCanFinishInTimeFinishesAndTheRestIsStoppedAndStaysOpen) {
  auto c = make_client(with_store(store));
  net->respond([](const http_request& r) {
    if (r.body.view().find("m-quick") != std::string::npos) {
      auto answer = reply(201, R"({"id":"ord_1"})");
      answer.takes = 1s;
      return answer;
    }
    return hang();
  });
  const intent quick = orders::create(sample_order("m-quick"));
  const intent stuck = orders::create(sample_order("m-stuck"));
  submit_async(*c, stuck);
  drain();
  submit_async(*c, quick);
  c->async_flush(5s, [this](flush_report r) { report = r; });
  drain();
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->finished, 1u);
  EXPECT_EQ(report->stopped, 1u);
  EXPECT_FALSE(report->store_error);
  EXPECT_EQ(outcomes[quick.key().str()].kind(), outcome_kind::succeeded);
  EXPECT_EQ(outcomes[stuck.key().str()].kind(), outcome_kind::unresolved)
      << "a write that left and was cut off may have executed";
  EXPECT_FALSE(store->find(quick.key())->is_open());
  EXPECT_TRUE(store->find(stuck.key())->is_open()) << "the stopped intent must be resumable";
  EXPECT_EQ(net->hanging(), 0u) << "the flush left a transfer behind";
  EXPECT_EQ(clock->pending(), 0u) << "the flush left a timer behind";
}

TEST_F(client_flush_test, AllFinishedBeforeTheTimeIsUpTheFlushDoesNotWaitItOut) {
  use_manual_clock();
  auto c = make_client(with_store(store));
  net->respond([](const http_request&) {
    auto answer = reply(201, R"({"id":"ord_1"})");
    answer.takes = 200ms;
    return answer;
  });
  submit_async(*c, orders::create(sample_order("m-1")));
  submit_async(*c, orders::create(sample_order("m-2")));
  c->async_flush(30s, [this](flush_report r) { report = r; });
  drain();
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->finished, 2u);
  EXPECT_EQ(report->stopped, 0u);
  EXPECT_LT(clock->elapsed(), 30s);
  EXPECT_EQ(clock->pending(), 0u) << "the flush's timer outlived it";
}

TEST_F(client_flush_test, OfflineTheIntentsWaitingForTheNetworkAreStoppedAtOnceNotSent) {
  use_manual_clock();
  auto o = with_store(store);
  o.lifecycle.pause_deadline_while_offline = true;
  auto c = make_client(o);
  c->set_network(network_status::offline);
  const intent order = orders::create(sample_order());
  submit_async(*c, order);
  drain();
  c->async_flush(10s, [this](flush_report r) { report = r; });
  drain();
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->stopped, 1u);
  EXPECT_EQ(outcomes[order.key().str()].kind(), outcome_kind::not_sent);
  EXPECT_TRUE(store->find(order.key())->is_open());
  EXPECT_EQ(clock->elapsed(), 0s) << "the flush waited for intents that could not finish";
  EXPECT_EQ(clock->pending(), 0u) << "the flush's timer outlived it";
  EXPECT_TRUE(net->requests().empty());
}

TEST_F(client_flush_test, AStoreThatCannotFlushIsReported) {
  auto s = std::make_shared<unflushable_store>();
  auto c = make_client(with_store(s));
  c->async_flush(1s, [this](flush_report r) { report = r; });
  drain();
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(s->flushes, 1);
  EXPECT_EQ(report->store_error, journal_errc::full);
}

TEST_F(client_flush_test, ShutdownStopsEverythingAtOnceAndRefusesNewSubmissions) {
  auto c = make_client(with_store(store));
  net->respond([](const http_request&) { return hang(); });
  const intent order = orders::create(sample_order());
  submit_async(*c, order);
  drain();
  c->async_shutdown([this](flush_report r) { report = r; });
  drain();
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(report->stopped, 1u);
  EXPECT_EQ(outcomes[order.key().str()].kind(), outcome_kind::unresolved);
  EXPECT_EQ(clock->elapsed(), 0s);

  const intent late = orders::create(sample_order("m-late"));
  const auto requests_before = net->requests().size();
  EXPECT_EQ(submit(*c, late).kind(), outcome_kind::not_sent);
  EXPECT_EQ(net->requests().size(), requests_before) << "sent after shutdown";
}

TEST_F(client_flush_test, ASubmissionNotYetStartedWhenShutdownIsCalledIsNeverSent) {
  // Submitted and shut down in the same turn: the client had not started the submission (it
  // does on its own executor). "At once" means it never goes out: not_sent, not a request on
  // the wire cancelled a moment later (unresolved, and open until resumed).
  auto c = make_client(with_store(store));
  net->respond([](const http_request&) { return hang(); });
  const intent order = orders::create(sample_order());
  submit_async(*c, order);
  c->async_shutdown([this](flush_report r) { report = r; });
  drain();
  ASSERT_TRUE(report.has_value());
  EXPECT_EQ(outcomes[order.key().str()].kind(), outcome_kind::not_sent);
  EXPECT_TRUE(net->requests().empty()) << "sent after shutdown was called";
  // The shutdown stopped it, though it had ended before the shutdown reached the strand.
  EXPECT_EQ(report->stopped, 1u);
  EXPECT_EQ(report->finished, 0u);
  EXPECT_FALSE(report->store_error);
}

TEST_F(client_flush_test, ShutdownWithAJournalLeavesTheStoppedIntentOpenInTheFileForTheNextStart) {
  idem::kit::temp_dir dir;
  const std::string path = (dir.path() / "intents.db").string();
  const intent order = orders::create(sample_order());
  {
    std::error_code ec;
    auto journal = sqlite_journal::open({.path = path}, ec);
    ASSERT_FALSE(ec) << ec.message();
    auto c = make_client(with_store(std::move(journal)));
    net->respond([](const http_request&) { return hang(); });
    submit_async(*c, order);
    // The journal completes its writes from its own thread: run until the attempt is out.
    while (net->hanging() == 0)
      io.run_one();
    c->async_shutdown([this](flush_report r) { report = r; });
    while (!report)
      io.run_one();
    EXPECT_FALSE(report->store_error);
    EXPECT_EQ(report->stopped, 1u);
  }
  drain();  // the client's last handlers let go of the journal (and its file lock)
  std::error_code ec;
  auto reopened = sqlite_journal::open({.path = path}, ec);
  ASSERT_FALSE(ec) << ec.message();
  const auto record = reopened->find(order.key());
  ASSERT_TRUE(record.has_value()) << "the intent did not survive the shutdown";
  EXPECT_TRUE(record->is_open());
  EXPECT_TRUE(record->maybe_sent()) << "its attempt had left: never not-sent after a restart";
  EXPECT_EQ(record->attempts, 1u);
  EXPECT_EQ(record->last_outcome, outcome_kind::unresolved);
}

}  // namespace
}  // namespace idem::test
