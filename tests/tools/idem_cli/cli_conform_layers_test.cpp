// How `idem-cli conform` reads idempotency layers that word their answers otherwise than the
// mock server (issue 44): a replay given with another status, a business constraint's bare 409
// among racing duplicates, a key header of another name. Each backend is broken_backend with
// one wording (tests/support/servers/broken_backend.hpp); its own counts (executions, orders)
// are the truth the report is held against.
#include <gtest/gtest.h>

#include <iostream>
#include <string>
#include <vector>

#include "idem_cli/exit_status.hpp"
#include "tests/support/servers/broken_backend.hpp"
#include "tests/tools/support/conform_run.hpp"

namespace idem::test {
namespace {

using namespace std::chrono_literals;
using kit::broken_backend;
using layers_options = kit::broken_backend_options;
using layers_wording = kit::broken_backend_wording;

// Executions long enough that the burst's duplicates meet the first one still running.
layers_options layer_worded(layers_wording words) {
  return {.defects = {}, .wording = std::move(words), .race_gap = 300ms, .execution = 250ms};
}

// A backend with no idempotency layer, only the unique constraint on merchant_order_id.
layers_options constraint_only(layers_wording words) {
  return {.defects = {.no_idempotency_layer = true},
          .wording = std::move(words),
          .race_gap = 300ms,
          .execution = 250ms};
}

conform_run conform_layer(const broken_backend& backend, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"conform",  "--url",  backend.url(), "--token", "shop-a",
                                   "--token2", "shop-b", "--race",      "20"};
  args.insert(args.end(), extra.begin(), extra.end());
  auto r = run_conform_json(std::move(args));
  print_table_of(r, std::cout);
  return r;
}

bool row_says(const conform_run& r, const std::string& id, const std::string& words) {
  return r.row(id).find(words) != std::string::npos;
}

// A layer that keeps every promise but answers a replay 409 with the stored body (marked or
// not): accepted and replayed, never "refused", and no advice about the key's form.
struct replay_wording {
  const char* name;
  bool marked;
};
class CliConformReplayWording : public ::testing::TestWithParam<replay_wording> {};

TEST_P(CliConformReplayWording, AReplayAnswered409WithTheStoredBodyIsReadAsReplayed) {
  broken_backend backend(layer_worded({.replay_status = 409, .mark_replays = GetParam().marked}));

  const auto r = conform_layer(backend);

  EXPECT_EQ(r.status, cli::exit_conform_clean) << r.out << r.err;
  EXPECT_EQ(r.verdict("key-forms"), "pass") << r.row("key-forms");
  EXPECT_FALSE(row_says(r, "key-forms", "not replayed")) << r.row("key-forms");
  EXPECT_NE(r.verdict("replay"), "fail") << r.row("replay");
  EXPECT_TRUE(row_says(r, "replay", "replayed with status 409")) << r.row("replay");
  EXPECT_FALSE(row_says(r, "replay", "not replayed")) << r.row("replay");
  EXPECT_EQ(r.verdict("race"), "pass") << r.row("race");
}

INSTANTIATE_TEST_SUITE_P(Layers, CliConformReplayWording,
                         ::testing::Values(replay_wording{"Unmarked", false},
                                           replay_wording{"Marked", true}),
                         [](const auto& info) { return std::string(info.param.name); });

TEST(CliConformLayers, ABusinessConstraintsBare409IsCountedAsAnExecutionNotInProgress) {
  broken_backend backend(constraint_only({.plain_business_conflict = true}));

  const auto r = conform_layer(backend);

  // The handler ran for every racing request; the constraint kept one order.
  ASSERT_GT(backend.executions(), backend.orders());
  std::cout << "executions " << backend.executions() << ", orders " << backend.orders() << '\n';
  EXPECT_EQ(r.status, cli::exit_conform_broken) << r.out << r.err;
  EXPECT_EQ(r.verdict("race"), "fail") << r.row("race");
  EXPECT_EQ(r.certainty("race"), "observed") << r.row("race");
  EXPECT_TRUE(row_says(r, "race", "19 business conflicts")) << r.row("race");
  EXPECT_FALSE(row_says(r, "race", "one execution")) << r.row("race");
  EXPECT_NE(r.verdict("in-progress"), "pass") << r.row("in-progress");
  EXPECT_EQ(r.verdict("replay"), "fail") << r.row("replay");
}

TEST(CliConformLayers, AnEmpty409AmongRacingDuplicatesLeavesTheRaceInconclusive) {
  broken_backend backend(constraint_only({.empty_business_conflict = true}));

  const auto r = conform_layer(backend);

  ASSERT_GT(backend.executions(), backend.orders());
  EXPECT_NE(r.verdict("race"), "pass") << r.row("race");
  EXPECT_EQ(r.certainty("race"), "inconclusive") << r.row("race");
}

TEST(CliConformLayers, OnACorrectLayerTheRaceIsProvenByTheLookupAndObservedWithoutIt) {
  broken_backend backend(layer_worded({}));

  const auto with_lookup = conform_layer(backend);
  const auto without = conform_layer(backend, {"--lookup", "none"});

  EXPECT_EQ(with_lookup.status, cli::exit_conform_clean) << with_lookup.out << with_lookup.err;
  EXPECT_EQ(with_lookup.verdict("race"), "pass") << with_lookup.row("race");
  EXPECT_EQ(with_lookup.certainty("race"), "proven") << with_lookup.row("race");
  EXPECT_EQ(without.verdict("race"), "pass") << without.row("race");
  EXPECT_EQ(without.certainty("race"), "observed") << without.row("race");
  for (const auto& id : every_check)
    EXPECT_NE(with_lookup.certainty(id), "missing") << with_lookup.row(id);
}

TEST(CliConformLayers, TheKeyHeaderIsTheOneNamed) {
  broken_backend backend(layer_worded({.key_header = "X-Request-Key"}));

  const auto r = conform_layer(backend, {"--key-header", "X-Request-Key"});

  EXPECT_EQ(r.status, cli::exit_conform_clean) << r.out << r.err;
  for (const auto& id : every_check)
    EXPECT_EQ(r.verdict(id), "pass") << r.row(id);
  EXPECT_TRUE(row_says(r, "missing-key", "no X-Request-Key")) << r.row("missing-key");
}

}  // namespace
}  // namespace idem::test
