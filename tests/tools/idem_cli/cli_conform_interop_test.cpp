// `idem-cli conform` against the idempotency layers of tests/interop, written by others and run
// by Node (skipped, saying why, where node or their npm packages are missing, as
// interop_backend_test is). Their known differences from the contract must be reported as what
// they are, check by check, without a crash:
// - express-idempotency executes a key-less POST, answers a reused key with 417 (only the
//   generic profile names it), shares keys between principals and deletes the key after any
//   non-2xx answer (a 4xx is executed again);
// - @node-idempotency/core executes a key-less POST, answers a reused key with a 422 without a
//   problem type (only generic names it) and shares keys between principals.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "idem_cli/exit_status.hpp"
#include "tests/support/processes/node_app.hpp"
#include "tests/tools/support/conform_run.hpp"

namespace idem::test {
namespace {

namespace fs = std::filesystem;
using kit::interop_backend;

struct interop_expectation {
  const interop_backend* server;
  std::map<std::string, std::string> verdicts;
};

// What both layers come to; each differs in one check at most.
std::map<std::string, std::string> verdicts(const std::string& final_4xx) {
  return {{"missing-key", "warn"},  {"replay", "pass"},      {"mismatch", "warn"},
          {"race", "pass"},         {"in-progress", "pass"}, {"principal-scope", "fail"},
          {"final-4xx", final_4xx}, {"key-forms", "pass"}};
}

const interop_expectation express_expected{&kit::express_idempotency, verdicts("fail")};
const interop_expectation node_expected{&kit::node_idempotency, verdicts("pass")};

class CliConformInterop : public ::testing::TestWithParam<interop_expectation> {
 protected:
  void SetUp() override {
    if (auto why = kit::interop_prerequisite_missing(*GetParam().server)) GTEST_SKIP() << *why;
    log_ = fs::temp_directory_path() /
           ("idem-conform-" + GetParam().server->name + "-" + std::to_string(::getpid()) + ".log");
  }
  void TearDown() override {
    if (!log_.empty() && !HasFailure()) fs::remove(log_);
  }
  fs::path log_;
};

TEST_P(CliConformInterop, ReportsTheLayersKnownDifferences) {
  // Executions of 100-150 ms: the burst's duplicates meet the first one running.
  kit::node_app app{*GetParam().server, log_, "100-150"};
  const std::string url = "http://127.0.0.1:" + std::to_string(app.port());

  const auto r =
      run_conform_json({"conform", "--url", url, "--token", "tenant-a", "--token2", "tenant-b"});

  EXPECT_EQ(r.status, cli::exit_conform_broken) << r.out << r.err;
  for (const auto& [id, expected] : GetParam().verdicts)
    EXPECT_EQ(r.verdict(id), expected) << r.row(id);
  // Both answer a reused key in words only the generic profile reads as a misuse.
  EXPECT_EQ(r.report["recommended_profile"], "generic") << r.out;
  print_table_of(r, std::cout);
  if (HasFailure()) std::cout << "the app's stderr: " << log_ << std::endl;
}

INSTANTIATE_TEST_SUITE_P(Layers, CliConformInterop,
                         ::testing::Values(express_expected, node_expected),
                         [](const ::testing::TestParamInfo<interop_expectation>& info) {
                           return info.param.server->name;
                         });

}  // namespace
}  // namespace idem::test
