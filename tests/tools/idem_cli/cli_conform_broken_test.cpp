// `idem-cli conform` against a backend broken on purpose (tests/support/broken_backend.*): with
// no defect it passes every check; each defect, switched on alone, is reported as breaking
// (exit 1) by the check that is about it, and by no other. The defects' races are real: the
// backend's own timers hold its check-then-insert gap and each execution open while the burst's
// requests arrive.
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
using cli::exit_conform_broken;
using cli::exit_conform_clean;
using kit::broken_backend;
using kit::broken_backend_defects;
using kit::broken_backend_options;

// Long enough that a burst's duplicates meet the first execution running (so "in progress" is
// seen) and that racing requests all look the key up inside the check-then-insert gap.
broken_backend_options with(broken_backend_defects defects) {
  return {.defects = defects, .race_gap = 300ms, .execution = 250ms};
}

// The report, its table shown in the test's output.
conform_run conform(const broken_backend& backend) {
  auto r = run_conform_json(
      {"conform", "--url", backend.url(), "--token", "shop-a", "--token2", "shop-b"});
  print_table_of(r, std::cout);
  return r;
}

// Every check passes but `broken`, which fails.
void expect_only_failure(const conform_run& r, const std::string& broken) {
  EXPECT_EQ(r.status, exit_conform_broken) << r.out << r.err;
  for (const auto& id : every_check) {
    if (id == broken) {
      EXPECT_EQ(r.verdict(id), "fail") << r.row(id);
    } else if (id == "in-progress") {
      EXPECT_NE(r.verdict(id), "fail") << r.row(id);
    } else {
      EXPECT_EQ(r.verdict(id), "pass") << r.row(id);
    }
  }
  EXPECT_NE(r.err.find("failed: " + broken), std::string::npos) << r.err;
  // A defect no profile can fix says nothing about the profile: the answers are IETF's.
  EXPECT_EQ(r.report["recommended_profile"], "ietf") << r.out;
}

TEST(CliConformBroken, WithNoDefectEveryCheckPasses) {
  broken_backend backend(with({}));

  const auto r = conform(backend);

  EXPECT_EQ(r.status, exit_conform_clean) << r.out << r.err;
  for (const auto& id : every_check)
    EXPECT_EQ(r.verdict(id), "pass") << r.row(id);
  EXPECT_EQ(r.report["recommended_profile"], "ietf") << r.out;
  EXPECT_NE(r.row("in-progress").find("409 idempotency-request-in-progress"), std::string::npos)
      << r.row("in-progress");
}

TEST(CliConformBroken, CheckThenInsertFailsTheRace) {
  broken_backend backend(with({.check_then_insert = true}));

  const auto r = conform(backend);

  expect_only_failure(r, "race");
  EXPECT_NE(r.row("race").find("business conflicts"), std::string::npos) << r.row("race");
}

TEST(CliConformBroken, KeysSharedByEveryPrincipalFailThePrincipalCheck) {
  broken_backend backend(with({.keys_not_scoped = true}));

  const auto r = conform(backend);

  expect_only_failure(r, "principal-scope");
}

TEST(CliConformBroken, AnUncomparedBodyFailsTheMismatchCheck) {
  broken_backend backend(with({.body_not_compared = true}));

  const auto r = conform(backend);

  expect_only_failure(r, "mismatch");
}

}  // namespace
}  // namespace idem::test
