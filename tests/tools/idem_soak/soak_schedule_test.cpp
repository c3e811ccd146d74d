// idem-soak's pure parts: the seeded fault schedule (every fault kind, accepted by the mock
// server's own parser, the same for the same seed), the tally of faults fired by kind, where one
// run of an intent ends and the next begins when its process was killed, and the replay line
// (parsed back, it asks for the same run).
#include <gtest/gtest.h>

#include <chrono>
#include <set>
#include <string>
#include <variant>

#include "idem_soak/fault_schedule.hpp"
#include "idem_soak/journal_facts.hpp"
#include "idem_soak/soak_options.hpp"
#include "mock_server/faults/fault_rules.hpp"

namespace idem::soak {
namespace {

using namespace std::chrono_literals;
using kind = timeline_entry::kind;

const wall_time schedule_t0 = wall_time{} + std::chrono::hours(24 * 365 * 55);

timeline_entry at(kind what, std::chrono::milliseconds offset) {
  return timeline_entry{.what = what, .at = schedule_t0 + offset};
}

TEST(SoakFaultSchedule, EveryEpochMixesEveryFaultKindTheServerAccepts) {
  for (std::uint64_t epoch = 0; epoch < 20; ++epoch) {
    const auto rules = fault_rules_for(1234, epoch, 0.5, 2'000);
    const auto parsed = mock::parse_fault_config(rules);
    ASSERT_TRUE(std::holds_alternative<mock::fault_config>(parsed))
        << std::get<std::string>(parsed) << "\n"
        << rules.dump(2);
    std::set<std::string> kinds;
    double probability = 0;
    for (const auto& r : rules["rules"]) {
      kinds.insert(r["fault"].get<std::string>());
      probability += r["probability"].get<double>();
      EXPECT_EQ(r["times"], rule_times);
    }
    EXPECT_EQ(kinds, std::set<std::string>(std::begin(fault_kinds), std::end(fault_kinds)));
    EXPECT_GT(probability, 0.25);
    EXPECT_LT(probability, 0.75);
  }
}

TEST(SoakFaultSchedule, TheSameSeedAndEpochGiveTheSameRules) {
  EXPECT_EQ(fault_rules_for(9, 3, 0.5, 2'000), fault_rules_for(9, 3, 0.5, 2'000));
  EXPECT_NE(fault_rules_for(9, 3, 0.5, 2'000), fault_rules_for(9, 4, 0.5, 2'000));
  EXPECT_NE(fault_rules_for(9, 3, 0.5, 2'000), fault_rules_for(10, 3, 0.5, 2'000));
}

TEST(SoakFaultSchedule, TheTallyCountsWhatEachRuleUsedUp) {
  const nlohmann::json installed = {{"rules",
                                     {{{"fault", "delay"}, {"times", rule_times}},
                                      {{"fault", "provider_timeout"}, {"times", rule_times}},
                                      {{"fault", "delay"}, {"times", rule_times}}}}};
  nlohmann::json now = installed;
  now["rules"][0]["times"] = rule_times - 3;
  now["rules"][1]["times"] = rule_times - 2;
  now["rules"][2]["times"] = rule_times - 1;
  fault_tally tally;
  tally.add(installed, now);
  tally.add(installed, installed);  // nothing fired
  EXPECT_EQ(tally.by_kind().at("delay"), 4u);
  EXPECT_EQ(tally.by_kind().at("provider_timeout"), 2u);
  EXPECT_EQ(tally.total(), 6u);
}

TEST(SoakRuns, ARunGoesFromItsFirstStepToItsOutcome) {
  const auto runs = runs_of(
      {at(kind::created, 0ms), at(kind::attempt_started, 100ms), at(kind::attempt_finished, 300ms),
       at(kind::waited, 300ms), at(kind::attempt_started, 800ms), at(kind::outcome, 900ms)},
      {schedule_t0});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].start, schedule_t0 + 100ms);  // the plan's `created` is not part of the run
  EXPECT_EQ(runs[0].length(), 800ms);
}

TEST(SoakRuns, AKilledProcessesStepsBelongToNoRun) {
  // Process 1 plans, tries twice and is killed; process 2 (started at 5 s) finishes it.
  const auto runs = runs_of({at(kind::created, 0ms), at(kind::attempt_started, 100ms),
                             at(kind::attempt_finished, 200ms), at(kind::attempt_started, 900ms),
                             at(kind::attempt_started, 5'200ms), at(kind::outcome, 5'300ms)},
                            {schedule_t0, schedule_t0 + 5s});
  ASSERT_EQ(runs.size(), 1u);
  EXPECT_EQ(runs[0].start, schedule_t0 + 5'200ms);
  EXPECT_EQ(runs[0].length(), 100ms);
}

TEST(SoakRuns, EachOutcomeEndsARunAndThePlanBindingStartsOne) {
  // Unresolved in process 1, resumed in process 2: two runs.
  const auto runs =
      runs_of({at(kind::created, 0ms), at(kind::path_bound, 50ms), at(kind::attempt_started, 60ms),
               at(kind::lookup, 9'000ms), at(kind::outcome, 9'500ms),
               at(kind::attempt_started, 12'000ms), at(kind::outcome, 12'100ms)},
              {schedule_t0, schedule_t0 + 11s});
  ASSERT_EQ(runs.size(), 2u);
  EXPECT_EQ(runs[0].start, schedule_t0 + 50ms);
  EXPECT_EQ(runs[0].length(), 9'450ms);
  EXPECT_EQ(runs[1].start, schedule_t0 + 12'000ms);
  EXPECT_EQ(runs[1].length(), 100ms);
  EXPECT_TRUE(runs_of({at(kind::created, 0ms), at(kind::abandoned, 10ms)}, {schedule_t0}).empty());
}

TEST(SoakOptions, TheReplayLineAsksForTheSameRun) {
  const auto first = parse_soak_options(
      {"--intents", "500", "--seed", "77", "--client-kills", "4", "--fault-share", "0.25",
       "--deadline", "8s", "--mix", "pay=0.5,cancel=0.5"},
      "/nowhere");
  ASSERT_TRUE(std::holds_alternative<soak_options>(first));
  const auto& o = std::get<soak_options>(first);
  const std::string line = replay_command(o);
  ASSERT_TRUE(line.starts_with("idem-soak ")) << line;
  std::vector<std::string> args;
  std::string word;
  for (char c : line.substr(std::string("idem-soak ").size()) + " ") {
    if (c != ' ') {
      word += c;
    } else if (!word.empty()) {
      args.push_back(word);
      word.clear();
    }
  }
  const auto again = parse_soak_options(args, "/nowhere");
  ASSERT_TRUE(std::holds_alternative<soak_options>(again)) << line;
  const auto& p = std::get<soak_options>(again);
  EXPECT_EQ(replay_command(p), line);
  EXPECT_EQ(p.seed, 77u);
  EXPECT_EQ(p.intents, 500u);
  EXPECT_EQ(p.client_kills, 4u);
  EXPECT_EQ(p.fault_share, 0.25);
  EXPECT_EQ(p.deadline, 8s);
  EXPECT_EQ(p.mix.cancel, 0.5);
}

TEST(SoakOptions, BadFlagsAreUsageErrors) {
  auto message = [](std::vector<std::string> args) {
    auto cmd = parse_soak_options(args, "/nowhere");
    auto* e = std::get_if<soak_usage_error>(&cmd);
    return e ? e->message : "<no usage error>";
  };
  EXPECT_EQ(message({"--intents", "0"}), "bad --intents '0' (1 to 10000000)");
  EXPECT_EQ(message({"--fault-share", "2"}), "bad --fault-share '2' (0 to 1)");
  EXPECT_EQ(message({"--deadline", "1s", "--attempt-timeout", "2s"}),
            "--attempt-timeout must not exceed --deadline");
  EXPECT_EQ(message({"--bogus", "1"}), "unknown flag --bogus");
  EXPECT_EQ(message({"--seed", "1", "--seed", "2"}), "--seed given twice");
  EXPECT_TRUE(std::holds_alternative<soak_help>(parse_soak_options({"--help"}, "/nowhere")));
}

}  // namespace
}  // namespace idem::soak
