// Fault presets through the test kit: chosen at start (--faults preset:NAME) or later by name
// (PUT /_mock/faults {"preset": NAME}); the server expands them, the kit only names them.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "idem/testing/mock_server_process.hpp"
#include "tests/support/processes/mock_server_binary.hpp"

namespace {

namespace kit = idem::kit;

const char* const preset_names[] = {"lost-responses", "flaky-gateway", "slow-provider",
                                    "in-progress", "everything"};

class preset_test : public ::testing::TestWithParam<const char*> {};

TEST_P(preset_test, UsePresetLoadsItsRulesWithItsSeedOrOurs) {
  auto server = kit::mock_server_process::start({.binary = kit::built_mock_server_binary()});
  ASSERT_TRUE(server.ok()) << server;
  const auto used = server->admin().use_preset(GetParam());
  ASSERT_TRUE(used.ok()) << used;
  auto rules = server->admin().faults();
  ASSERT_TRUE(rules.ok()) << rules;
  EXPECT_FALSE((*rules)["rules"].empty()) << *rules;
  EXPECT_EQ((*rules)["seed"], 1);

  ASSERT_TRUE(server->admin().use_preset(GetParam(), 99).ok());
  EXPECT_EQ(server->admin().faults().value()["seed"], 99);
}

TEST_P(preset_test, APresetGivenAtStartIsActive) {
  auto server = kit::mock_server_process::start(
      {.binary = kit::built_mock_server_binary(), .preset = GetParam(), .fault_seed = 5});
  ASSERT_TRUE(server.ok()) << server;
  auto rules = server->admin().faults();
  ASSERT_TRUE(rules.ok()) << rules;
  EXPECT_FALSE((*rules)["rules"].empty()) << *rules;
  EXPECT_EQ((*rules)["seed"], 5);
}

INSTANTIATE_TEST_SUITE_P(Presets, preset_test, ::testing::ValuesIn(preset_names),
                         [](const auto& info) {
                           std::string name = info.param;
                           for (auto& c : name)
                             if (c == '-') c = '_';
                           return name;
                         });

TEST(Presets, AnUnknownPresetIsRefusedWithTheKnownNames) {
  auto server = kit::mock_server_process::start({.binary = kit::built_mock_server_binary()});
  ASSERT_TRUE(server.ok()) << server;
  const auto used = server->admin().use_preset("chaos-monkey");
  ASSERT_FALSE(used.ok());
  EXPECT_EQ(used.error().code, kit::mock_errc::refused);
  EXPECT_NE(used.describe().find("unknown fault preset 'chaos-monkey'"), std::string::npos) << used;
  EXPECT_NE(used.describe().find("lost-responses, flaky-gateway"), std::string::npos) << used;
}

TEST(Presets, AnUnknownPresetAtStartIsAStartFailureWithTheKnownNames) {
  auto server = kit::mock_server_process::start(
      {.binary = kit::built_mock_server_binary(), .preset = "chaos-monkey"});
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.error().code, kit::mock_errc::start_failed);
  EXPECT_NE(server.describe().find("known: lost-responses"), std::string::npos) << server;
}

}  // namespace
