// idem-cli killed with SIGKILL while it works through a journaled load (20 orders, each with its
// payment: 40 intents), at each point of the write-ahead protocol (IDEM_CLI_CRASH_AT, see
// tools/idem_cli/crash_points.hpp) and at seeded random moments, against a mock server that
// loses, delays and refuses requests. After each kill `idem-cli resume` finishes the journal.
// Whatever the moment, nothing is lost (every planned intent ends, and succeeds) and nothing
// happens twice (the server's books hold one order per order intent, one charge per payment).
#include <gtest/gtest.h>
#include <signal.h>

#include <filesystem>
#include <iostream>
#include <random>
#include <sstream>

#include "tests/support/http/fault_rules.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/tools/support/cli_journal_fixture.hpp"

namespace idem::test::cli_journal {
namespace {

constexpr std::size_t orders = 20;
constexpr std::int64_t intents = 2 * orders;  // each order and its payment

// Requests refused on arrival, held `hold_ms` while executing, and answered into the void after
// their commit, each about one time in three (seeded, so a run is repeatable as far as the order
// of arrival allows). Every intent still gets through within a 10 s deadline.
nlohmann::json flaky_server(int hold_ms = 150) {
  return idem::kit::fault_config(
      {on_any_post("status_before_processing", {{"status", 503}, {"probability", 0.3}}),
       on_any_post("delay", {{"delay_ms", hold_ms}, {"probability", 0.3}}),
       on_any_post("drop_response_after_commit", {{"probability", 0.3}})},
      /*seed=*/20251130);
}

// Every request that executes is held for two seconds: a client killed 200 ms after it sent one
// dies while the server still works on it.
nlohmann::json holding_server() {
  return idem::kit::fault_config({on_any_post("delay", {{"delay_ms", 2000}})}, 7);
}

class CliCrash : public cli_journal_test {
 protected:
  // The load, killed by its own crash point.
  void load_killed_at(const std::string& point) {
    const cli_result r = run(load_args(orders), crash_at(point));
    ASSERT_EQ(r.signal(), SIGKILL) << "the crash point " << point << " never fired: " << r.dump();
    ++kills_;
  }

  // After the last resume: every intent of the journal ended and succeeded, and the server did
  // each exactly once.
  void expect_all_done_exactly_once(const std::string& scenario) {
    const auto counts = journal_counts();
    EXPECT_EQ(counts.value("intents", -1), intents) << "an intent was lost: " << counts.dump();
    EXPECT_EQ(
        counts.value("succeeded", -1) + counts.value("rejected", -1) + counts.value("not_sent", -1),
        counts.value("intents", -2))
        << counts.dump();
    EXPECT_EQ(counts.value("unresolved", -1), 0) << counts.dump();
    EXPECT_EQ(counts.value("succeeded", -1), intents) << counts.dump();

    const auto s = stats();
    // All 40 succeeded: 20 order intents and 20 payment intents, each done once.
    EXPECT_EQ(s.value("orders", -1), counts.value("succeeded", -2) / 2) << s.dump();
    EXPECT_EQ(s.value("payments", -1), counts.value("succeeded", -2) / 2) << s.dump();
    EXPECT_EQ(s.value("provider_charges", -1), s.value("payments", -2)) << s.dump();
    EXPECT_EQ(s.value("orders_with_multiple_charges", -1), 0) << s.dump();
    EXPECT_LE(s.value("max_keys_per_business_id", 99), 1) << s.dump();
    report(scenario, s);
  }

  // The counts a reader may quote: in the XML report and on stdout.
  void report(const std::string& scenario, const nlohmann::json& s) {
    std::ostringstream line;
    line << "[crash-counts] " << scenario << ": kills=" << kills_ << " resumes=" << resumes_;
    RecordProperty("kills", kills_);
    RecordProperty("resumes", resumes_);
    for (const char* name : {"requests", "orders", "payments", "provider_charges", "replays",
                             "faults_injected", "in_progress_conflicts", "business_id_conflicts"}) {
      line << ' ' << name << '=' << s.value(name, -1);
      RecordProperty(name, std::to_string(s.value(name, -1)));
    }
    std::cout << line.str() << std::endl;
  }

  int kills_ = 0;
  int resumes_ = 0;
};

TEST_F(CliCrash, KilledOnceThePlanIsDurableSendsNothingAndResumeDoesEverythingOnce) {
  api_->set_faults(flaky_server());
  load_killed_at("planned");
  const auto counts = journal_counts();
  EXPECT_EQ(counts.value("intents", -1), intents) << counts.dump();
  // An order's start need not be committed before it leaves (its plan is): after a kill the
  // file cannot tell a sent order from an unsent one, so every order reads as maybe sent. A
  // payment's path is bound by a waited write: not bound, not sent.
  EXPECT_EQ(counts.value("unresolved", -1), orders) << counts.dump();
  EXPECT_EQ(counts.value("not_sent", -1), intents - orders) << counts.dump();
  EXPECT_EQ(stat("requests"), 0);  // the plan is written down before the first request
  resumes_ = resume_to_the_end();
  expect_all_done_exactly_once("planned");
}

TEST_F(CliCrash, KilledBeforeTheFifthRequestLeftResumesItsIntentAsMaybeSent) {
  api_->set_faults(flaky_server());
  load_killed_at("before-send:5");
  // The fifth attempt's start is durable: its intent may have been sent, whatever it knows.
  const auto counts = journal_counts();
  EXPECT_EQ(counts.value("intents", -1), intents) << counts.dump();
  EXPECT_GE(counts.value("unresolved", -1), 1) << counts.dump();
  resumes_ = resume_to_the_end();
  expect_all_done_exactly_once("before-send:5");
}

TEST_F(CliCrash, KilledWhileTheServerHoldsItsRequestsResumesWithoutExecutingAgain) {
  api_->set_faults(holding_server());
  load_killed_at("in-flight:5");
  const auto counts = journal_counts();
  EXPECT_GE(counts.value("unresolved", -1), 1) << counts.dump();
  EXPECT_EQ(counts.value("succeeded", -1), 0) << "no answer came back before the kill";
  // The held requests execute and commit after their client died: the journal cannot know, so
  // the resume must find their results (same keys), not execute them again.
  EXPECT_TRUE(idem::kit::eventually([&] { return stat("orders") >= 1; }));
  api_->set_faults(flaky_server());
  resumes_ = resume_to_the_end();
  expect_all_done_exactly_once("in-flight:5");
}

TEST_F(CliCrash, KilledAfterAnAnswerArrivedUnrecordedResumesTheIntentAsMaybeSent) {
  api_->set_faults(flaky_server());
  load_killed_at("after-response:5");
  const auto counts = journal_counts();
  EXPECT_GE(counts.value("unresolved", -1), 1) << counts.dump();
  resumes_ = resume_to_the_end();
  expect_all_done_exactly_once("after-response:5");
}

TEST_F(CliCrash, KilledWithOutcomesNotYetCommittedResumesThemUnderTheirKeys) {
  // The journal commits an outcome with the next attempt's start: the tenth outcome, and
  // those reported since the last commit, die with the process. Their intents read back as
  // possibly sent; the resume asks again under the same keys and the server replays.
  api_->set_faults(flaky_server());
  load_killed_at("after-outcome:10");
  const auto counts = journal_counts();
  EXPECT_EQ(counts.value("intents", -1), intents) << counts.dump();
  EXPECT_GE(counts.value("unresolved", -1), 1) << counts.dump();
  resumes_ = resume_to_the_end();
  expect_all_done_exactly_once("after-outcome:10");
}

TEST_F(CliCrash, KilledWhileWaitingToRetryResumesWithoutExecutingAgain) {
  api_->set_faults(flaky_server());
  load_killed_at("waiting:3");
  const auto counts = journal_counts();
  EXPECT_GE(counts.value("unresolved", -1), 1) << counts.dump();
  resumes_ = resume_to_the_end();
  expect_all_done_exactly_once("waiting:3");
}

TEST_F(CliCrash, KilledAtRandomMomentsAgainAndAgainLosesNothingAndDoublesNothing) {
  // Longer holds and 4 intents at a time: each run lasts about a second or more, so most random
  // moments fall in the middle of the work.
  api_->set_faults(flaky_server(/*hold_ms=*/500));
  const strings concurrency{"--concurrency", "4"};
  std::mt19937 rng{1130};  // fixed: the same kill moments on every run
  std::uniform_int_distribution<int> kill_after_ms{20, 700};
  int plans_cut_short = 0;

  // The load, then resumes, each killed at a random moment (unless it finished first).
  bool load_planned = false;
  // Kills that came before the load had even created its journal (a slow start: a loaded
  // machine, a sanitizer build): they prove nothing, so they do not count as kills, and each
  // one moves the later moments on by the time it wasted.
  int too_early = 0;
  for (int round = 0; round < 20 && kills_ < 5; ++round) {
    const bool loading = !load_planned;
    strings args = loading ? load_args(orders, concurrency) : resume_args();
    if (!loading) args.insert(args.end(), concurrency.begin(), concurrency.end());
    cli_process child(args);
    if (!loading) ++resumes_;
    const auto moment = std::chrono::milliseconds(kill_after_ms(rng) + 300 * too_early);
    if (auto done = child.wait_for(moment)) {
      ASSERT_TRUE(done->exit_code() == 0 || done->exit_code() == 1 || done->exit_code() == 3)
          << done->dump();
      load_planned = true;
      if (!loading && done->exit_code() != 3) break;  // nothing left to kill
      continue;
    }
    child.kill();
    if (loading && !std::filesystem::exists(journal_)) {
      EXPECT_EQ(stat("requests"), 0) << "a request left before the journal existed";
      ++too_early;
      continue;
    }
    ++kills_;
    if (!loading) continue;
    const auto counts = journal_counts();
    if (counts.value("intents", -1) == intents) {
      load_planned = true;
      continue;
    }
    // Killed while writing its plan: nothing may have been sent. Start over on a new journal.
    EXPECT_EQ(stat("requests"), 0) << counts.dump();
    ++plans_cut_short;
    journal_ = dir_.file("shop-" + std::to_string(plans_cut_short) + ".journal");
  }
  ASSERT_TRUE(load_planned);
  resumes_ += resume_to_the_end();
  RecordProperty("plans_cut_short", plans_cut_short);
  expect_all_done_exactly_once("random (plans cut short: " + std::to_string(plans_cut_short) + ")");
  EXPECT_GE(kills_, 2) << "the random moments should kill the work more than once";
}

}  // namespace
}  // namespace idem::test::cli_journal
