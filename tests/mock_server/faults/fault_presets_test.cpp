// Named fault presets: defined once (mock_server/faults/fault_presets.cpp), expanded for
// `--faults preset:NAME` and for `PUT /_mock/faults {"preset": NAME}`.
#include "mock_server/faults/fault_presets.hpp"

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <string>
#include <vector>

#include "mock_server/command_line.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/processes/child_process.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::mock {
namespace {

using json = nlohmann::json;

fault_config expanded(std::string_view name, std::optional<std::uint64_t> seed = std::nullopt) {
  auto result = expand_fault_preset(name, seed);
  if (auto* error = std::get_if<std::string>(&result)) {
    ADD_FAILURE() << name << ": " << *error;
    return {};
  }
  return std::get<fault_config>(std::move(result));
}

std::string error_of(const std::variant<fault_config, std::string>& result) {
  if (auto* error = std::get_if<std::string>(&result)) return *error;
  return "<expanded>";
}

TEST(FaultPresets, EveryPresetIsAValidRuleSetThatTouchesWritesOnly) {
  ASSERT_EQ(fault_presets().size(), 5U);
  for (const auto& preset : fault_presets()) {
    SCOPED_TRACE(std::string{preset.name});
    const auto config = expanded(preset.name);
    EXPECT_FALSE(config.rules.empty());
    EXPECT_EQ(config.seed, 1U);
    EXPECT_FALSE(preset.purpose.empty());
    for (const auto& rule : config.rules) {
      EXPECT_EQ(rule.method, "POST");
      EXPECT_GT(rule.probability, 0.0);
      // Moderate: most requests still go through. A hold fails nothing (the request goes through
      // once it ends), so it may be certain.
      if (rule.fault != fault_kind::hold_in_processing) {
        EXPECT_LE(rule.probability, 0.25);
      }
    }
  }
}

TEST(FaultPresets, TheirNamesAreTheDocumentedOnes) {
  EXPECT_EQ(fault_preset_names(),
            "lost-responses, flaky-gateway, slow-provider, in-progress, everything");
}

TEST(FaultPresets, EverythingHasEveryFaultOfTheContractButTheHold) {
  // hold_in_processing is left out: its `delay` already holds executions there, and adding a
  // rule would change the draws of every seeded `everything` run recorded so far.
  const auto config = expanded("everything");
  std::vector<bool> seen(9, false);
  for (const auto& rule : config.rules)
    seen.at(static_cast<std::size_t>(rule.fault)) = true;
  for (std::size_t i = 0; i < seen.size(); ++i) {
    const auto kind = static_cast<fault_kind>(i);
    EXPECT_EQ(seen[i], kind != fault_kind::hold_in_processing) << to_string(kind);
  }
}

TEST(FaultPresets, EachNamedPresetHasTheFaultsItIsNamedFor) {
  auto kinds = [](std::string_view name) {
    std::vector<fault_kind> out;
    for (const auto& r : expanded(name).rules)
      out.push_back(r.fault);
    return out;
  };
  using enum fault_kind;
  EXPECT_EQ(kinds("lost-responses"),
            (std::vector{drop_response_after_commit, status_after_commit, status_after_commit}));
  EXPECT_EQ(kinds("flaky-gateway"), (std::vector{reset_before_processing, status_before_processing,
                                                 status_before_processing}));
  EXPECT_EQ(kinds("slow-provider"), (std::vector{delay, provider_timeout, stall_after_commit}));
  EXPECT_EQ(kinds("in-progress"), (std::vector{hold_in_processing}));
}

TEST(FaultPresets, InProgressHoldsEveryWriteForHalfASecond) {
  // Certain and on every write, so that a duplicate sent within the hold always meets it.
  const auto config = expanded("in-progress");
  ASSERT_EQ(config.rules.size(), 1U);
  const auto& rule = config.rules[0];
  EXPECT_EQ(rule.method, "POST");
  EXPECT_FALSE(rule.route.has_value());
  EXPECT_EQ(rule.probability, 1.0);
  EXPECT_FALSE(rule.times.has_value());
  EXPECT_EQ(rule.delay, std::chrono::milliseconds(500));
}

TEST(FaultPresets, ASeedReplacesThePresetsOwn) {
  EXPECT_EQ(expanded("flaky-gateway", 1234).seed, 1234U);
}

TEST(FaultPresets, AnUnknownNameIsAnErrorThatListsTheKnownOnes) {
  EXPECT_EQ(error_of(expand_fault_preset("chaos")),
            "unknown fault preset 'chaos' (known: lost-responses, flaky-gateway, slow-provider, "
            "in-progress, everything)");
}

TEST(FaultRequest, APresetByNameOrRulesButNotBoth) {
  auto by_name = parse_fault_request(json{{"preset", "lost-responses"}, {"seed", 9}});
  ASSERT_TRUE(std::holds_alternative<fault_config>(by_name)) << error_of(by_name);
  EXPECT_EQ(std::get<fault_config>(by_name).seed, 9U);
  EXPECT_EQ(std::get<fault_config>(by_name).rules.size(), 3U);

  auto rules = parse_fault_request(json::parse(R"({"rules": [{"fault": "delay"}]})"));
  ASSERT_TRUE(std::holds_alternative<fault_config>(rules)) << error_of(rules);

  EXPECT_EQ(error_of(parse_fault_request(json::parse(R"({"preset": "everything", "rules": []})"))),
            "preset: give either a preset or rules, not both");
  EXPECT_EQ(error_of(parse_fault_request(json{{"preset", 3}})), "preset: must be a string");
  EXPECT_EQ(error_of(parse_fault_request(json{{"preset", "everything"}, {"seed", -1}})),
            "seed: must be a non-negative integer");
  EXPECT_NE(error_of(parse_fault_request(json{{"preset", "nope"}})).find("preset: unknown"),
            std::string::npos);
}

command_line parsed(const std::vector<std::string>& args) {
  auto result = parse_command_line(args);
  if (auto* error = std::get_if<std::string>(&result)) {
    ADD_FAILURE() << *error;
    return {};
  }
  return std::get<command_line>(std::move(result));
}

std::string command_line_error(const std::vector<std::string>& args) {
  auto result = parse_command_line(args);
  if (auto* error = std::get_if<std::string>(&result)) return *error;
  return "<parsed>";
}

TEST(FaultPresetCommandLine, FaultsPresetNameLoadsThePreset) {
  const auto cmd = parsed({"--admin-token", "a", "--faults", "preset:slow-provider"});
  ASSERT_TRUE(cmd.options.faults.has_value());
  EXPECT_EQ(cmd.options.faults->rules.size(), expanded("slow-provider").rules.size());
  EXPECT_EQ(cmd.options.faults->seed, 1U);
}

TEST(FaultPresetCommandLine, FaultSeedReplacesTheSeedWhateverTheOrder) {
  EXPECT_EQ(parsed({"--fault-seed", "77", "--admin-token", "a", "--faults", "preset:everything"})
                .options.faults->seed,
            77U);
  EXPECT_EQ(command_line_error({"--admin-token", "a", "--fault-seed", "7"}),
            "--fault-seed: needs --faults");
  EXPECT_EQ(command_line_error(
                {"--admin-token", "a", "--faults", "preset:everything", "--fault-seed", "-3"}),
            "--fault-seed: expected a whole number from 0 to 2^64-1, not '-3'");
}

TEST(FaultPresetCommandLine, AnUnknownPresetExitsTwoListingThePresets) {
  const auto run = kit::run_mock_server_to_exit(
      {"--admin-token", "a", "--db", ":memory:", "--faults", "preset:nope"});
  ASSERT_FALSE(run.timed_out) << run.output;
  EXPECT_TRUE(WIFEXITED(run.wait_status) && WEXITSTATUS(run.wait_status) == 2) << run.output;
  EXPECT_NE(run.output.find("--faults: unknown fault preset 'nope' (known: lost-responses, "
                            "flaky-gateway, slow-provider, in-progress, everything)"),
            std::string::npos)
      << run.output;
}

TEST(FaultPresetAdminApi, PutWithAPresetNameReplacesTheRules) {
  kit::running_server server;
  kit::api_client api{server.port()};
  const auto put = api.admin("PUT", "/_mock/faults", json{{"preset", "flaky-gateway"}});
  ASSERT_EQ(put.res.status, 200) << put.res.body;
  const auto rules = api.admin("GET", "/_mock/faults").res.json();
  EXPECT_EQ(rules["rules"].size(), 3U);
  EXPECT_EQ(rules["rules"][0]["fault"], "reset_before_processing");

  const auto unknown = api.admin("PUT", "/_mock/faults", json{{"preset", "nope"}});
  EXPECT_TRUE(kit::is_problem(unknown, 400, "validation-failed"));
  EXPECT_NE(unknown.res.body.find("lost-responses"), std::string::npos) << unknown.res.body;
  // The refused request left the rules as they were.
  EXPECT_EQ(api.admin("GET", "/_mock/faults").res.json()["rules"].size(), 3U);
}

}  // namespace
}  // namespace idem::mock
