// `idem-cli conform` against the bundled mock server (every check passes), against backends that
// answer garbage, never answer or are not there (reported as not completed, exit 3, never a
// crash), a custom endpoint and body, and its command line (exit 2). The deliberately broken
// backend and the interop servers have tests of their own (cli_conform_broken_test,
// cli_conform_interop_test).
#include <gtest/gtest.h>

#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "idem_cli/exit_status.hpp"
#include "idem_cli/run_cli.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/servers/in_process_http_server.hpp"
#include "tests/support/servers/recording_listener.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/unused_port.hpp"
#include "tests/tools/support/conform_run.hpp"

namespace idem::test {
namespace {

using strings = std::vector<std::string>;
using cli::exit_conform_broken;
using cli::exit_conform_clean;
using cli::exit_conform_inconclusive;
using cli::exit_usage;
using kit::http_answer;
using kit::recording_listener;

std::string url_of(const kit::running_server& server) {
  return "http://127.0.0.1:" + std::to_string(server.port());
}

struct text_run {
  int status;
  std::string out;
  std::string err;
};

text_run run_text(const strings& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int status = cli::run_cli(args, out, err, /*show_progress=*/false);
  return {status, out.str(), err.str()};
}

TEST(CliConform, TheMockServerPassesEveryCheck) {
  kit::running_server server;
  const auto r = run_conform_json(
      {"conform", "--url", url_of(server), "--token", "shop-a", "--token2", "shop-b"});

  ASSERT_EQ(r.status, exit_conform_clean) << r.out << r.err;
  for (const auto& id : every_check) {
    // Without faults a create on the mock server claims, executes and commits in one step: no
    // duplicate of the burst can meet it running, so "in progress" is not observable (skip, not
    // a pass), and the row says how to make it so.
    if (id == "in-progress") {
      EXPECT_EQ(r.verdict(id), "skip") << r.row(id);
      EXPECT_NE(r.row(id).find("--faults preset:in-progress"), std::string::npos) << r.row(id);
    } else {
      EXPECT_EQ(r.verdict(id), "pass") << r.row(id);
    }
  }
  EXPECT_EQ(r.report["recommended_profile"], "ietf") << r.out;
  EXPECT_EQ(r.report["summary"]["fail"], 0) << r.out;
  EXPECT_EQ(r.report["exit_status"], exit_conform_clean);
  EXPECT_TRUE(r.err.empty()) << r.err;
}

TEST(CliConform, TheMockServerUnderTheInProgressPresetPassesTheInProgressCheck) {
  kit::running_server server;
  kit::api_client admin{server.port()};
  const auto put = admin.admin("PUT", "/_mock/faults", {{"preset", "in-progress"}});
  ASSERT_EQ(put.res.status, 200) << put.res.body;

  const auto r = run_conform_json(
      {"conform", "--url", url_of(server), "--token", "shop-a", "--token2", "shop-b"});

  ASSERT_EQ(r.status, exit_conform_clean) << r.out << r.err;
  // Every write is held 500 ms in PROCESSING: the burst's duplicates meet the first request
  // running, get 409 in progress with Retry-After, and ietf reads it as "same key again".
  for (const auto& id : every_check)
    EXPECT_EQ(r.verdict(id), "pass") << r.row(id);
  const auto row = r.row("in-progress");
  EXPECT_NE(row.find("409 idempotency-request-in-progress"), std::string::npos) << row;
  EXPECT_NE(row.find("Retry-After says how long"), std::string::npos) << row;
  EXPECT_NE(r.row("race").find("1 resource id"), std::string::npos) << r.row("race");
  EXPECT_EQ(r.report["summary"]["skip"], 0) << r.out;
  print_table_of(r, std::cout);  // the table of the mock server, for docs/BACKEND_READINESS.md
}

TEST(CliConform, TheTableShowsEveryCheckAndASkippedPrincipalCheckKeepsExitZero) {
  kit::running_server server;
  const auto r = run_text({"conform", "--url", url_of(server), "--token", "shop-a"});

  ASSERT_EQ(r.status, exit_conform_clean) << r.out << r.err;
  // Titles wrap in their column: each row starts with its number and the title's first words.
  for (const char* start :
       {"1. POST without", "2. same key,", "3. same key,", "4. 50 racing", "5. \"in progress\"",
        "6. same key,", "7. a 4xx under a", "8. key length"}) {
    EXPECT_NE(r.out.find(std::string("\n") + start), std::string::npos) << start << "\n" << r.out;
  }
  const auto rows_with = [&](const std::string& cell) {
    std::size_t n = 0;
    for (auto at = r.out.find(cell); at != std::string::npos; at = r.out.find(cell, at + 1))
      ++n;
    return n;
  };
  EXPECT_EQ(rows_with("| pass    |"), 6u) << r.out;
  EXPECT_EQ(rows_with("| skip    |"), 2u) << r.out;
  EXPECT_NE(r.out.find("not checked: needs --token2"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("profile: ietf reads every answer right"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("exit 0: nothing found that breaks exactly-once"), std::string::npos)
      << r.out;
  std::cout << r.out;  // the table of the mock server, for docs/BACKEND_READINESS.md
}

TEST(CliConform, ABodyFileWithAPlaceholderIsWhatEachCheckSends) {
  kit::running_server server;
  kit::temp_dir dir;
  const std::string file = dir.file("order.json");
  std::ofstream(file) << R"({"merchant_order_id": "shop-{{unique}}", "customer_id": "c-9",
      "currency": "USD", "amount_minor": 700,
      "items": [{"sku": "{{unique}}", "quantity": 1, "unit_price_minor": 700}]})";

  const auto r = run_conform_json({"conform", "--url", url_of(server), "--token", "shop-a",
                                   "--body-file", file, "--race", "8"});

  ASSERT_EQ(r.status, exit_conform_clean) << r.out << r.err;
  EXPECT_EQ(r.verdict("race"), "pass") << r.row("race");
  EXPECT_EQ(r.report["race"], 8);
}

TEST(CliConform, TheGivenPathIsTheOneChecked) {
  recording_listener server([](const std::string& head) -> std::optional<std::string> {
    return http_answer(head.starts_with("POST ") ? 201 : 404, R"({"id":"one"})");
  });

  const auto r = run_conform_json({"conform", "--url", server.url(), "--token", "t", "--path",
                                   "/api/v2/orders", "--lookup", "none", "--race", "4"});

  const auto posts = server.heads_starting("POST ");
  ASSERT_FALSE(posts.empty());
  for (const auto& head : posts)
    EXPECT_TRUE(head.starts_with("POST /api/v2/orders HTTP/1.1")) << head;
  // A backend that answers every POST alike: the missing key is not refused, another body
  // under a key gets the first answer, another key one character away collides.
  EXPECT_EQ(r.status, exit_conform_broken) << r.out << r.err;
  EXPECT_EQ(r.verdict("missing-key"), "warn") << r.row("missing-key");
  EXPECT_EQ(r.verdict("mismatch"), "fail") << r.row("mismatch");
  EXPECT_EQ(r.verdict("key-forms"), "fail") << r.row("key-forms");
}

TEST(CliConform, ABackendThatAnswersGarbageIsReportedNotCompleted) {
  recording_listener server(
      [](const std::string&) -> std::optional<std::string> { return "NOT HTTP AT ALL\r\n\r\n"; });

  const auto r = run_conform_json({"conform", "--url", server.url(), "--token", "t"});

  EXPECT_EQ(r.status, exit_conform_inconclusive) << r.out << r.err;
  EXPECT_EQ(r.verdict("missing-key"), "error") << r.row("missing-key");
  // The run stops at the first check that got no answer: one request, not one per check.
  for (const auto& id : every_check)
    EXPECT_EQ(r.verdict(id), "error") << r.row(id);
  EXPECT_LE(server.heads().size(), 2u);
  EXPECT_NE(r.err.find("not completed: missing-key"), std::string::npos) << r.err;
}

TEST(CliConform, ABackendThatClosesTheConnectionIsReportedNotCompleted) {
  kit::in_process_http_server server;
  server.start(
      [](mock::request) -> boost::asio::awaitable<mock::reply> {
        co_return mock::reply{.res = {}, .how = mock::delivery::reset, .close = true};
      },
      {});

  const auto r = run_conform_json(
      {"conform", "--url", "http://127.0.0.1:" + std::to_string(server.port()), "--token", "t"});

  EXPECT_EQ(r.status, exit_conform_inconclusive) << r.out << r.err;
  EXPECT_EQ(r.verdict("missing-key"), "error") << r.row("missing-key");
  EXPECT_NE(r.row("missing-key").find("no answer"), std::string::npos) << r.row("missing-key");
}

TEST(CliConform, ABackendThatNeverAnswersIsReportedWithinTheTimeout) {
  recording_listener server([](const std::string&) { return std::optional<std::string>{}; });

  const auto r = run_conform_json(
      {"conform", "--url", server.url(), "--token", "t", "--attempt-timeout", "300ms"});

  EXPECT_EQ(r.status, exit_conform_inconclusive) << r.out << r.err;
  EXPECT_EQ(r.verdict("missing-key"), "error") << r.row("missing-key");
  EXPECT_NE(r.row("missing-key").find("no answer"), std::string::npos) << r.row("missing-key");
}

TEST(CliConform, NothingListeningIsReportedNotCompleted) {
  const auto r =
      run_conform_json({"conform", "--url",
                        "http://127.0.0.1:" + std::to_string(kit::unused_port()), "--token", "t"});

  EXPECT_EQ(r.status, exit_conform_inconclusive) << r.out << r.err;
  EXPECT_EQ(r.report["summary"]["error"], every_check.size()) << r.out;
}

struct bad_command_line {
  strings args;
  std::string says;
};

class CliConformUsage : public ::testing::TestWithParam<bad_command_line> {};

TEST_P(CliConformUsage, IsRefusedWithExitTwoAndSaysWhy) {
  const auto r = run_text(GetParam().args);
  EXPECT_EQ(r.status, exit_usage) << r.out << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_NE(r.err.find(GetParam().says), std::string::npos) << r.err;
}

const std::string url = "http://127.0.0.1:9";

INSTANTIATE_TEST_SUITE_P(
    Flags, CliConformUsage,
    ::testing::Values(
        bad_command_line{{"conform", "--token", "t"}, "missing --url"},
        bad_command_line{{"conform", "--url", url}, "missing --token"},
        bad_command_line{{"conform", "--url", "ftp://example.com", "--token", "t"}, "--url"},
        bad_command_line{{"conform", "--url", "not a url", "--token", "t"}, "--url"},
        bad_command_line{{"conform", "--url", url, "--token", "t", "--profile", "nope"},
                         "bad --profile 'nope'"},
        bad_command_line{{"conform", "--url", url, "--token", "t", "--race", "1"},
                         "bad --race '1'"},
        bad_command_line{{"conform", "--url", url, "--token", "t", "--token2", "t"},
                         "--token2 must be another principal's token"},
        bad_command_line{{"conform", "--url", url, "--token", "t", "--format", "xml"},
                         "bad --format 'xml'"},
        bad_command_line{{"conform", "--url", url, "--token", "t", "--path", "v1"},
                         "--path must start with '/'"},
        bad_command_line{{"conform", "--url", url, "--token", "t", "--deadline", "5s"},
                         "unknown flag --deadline"},
        bad_command_line{{"conform", "--url", url, "--token", "t", "--body-file", "/nonexistent"},
                         "bad --body-file '/nonexistent'"}),
    [](const ::testing::TestParamInfo<bad_command_line>& info) {
      return "case" + std::to_string(info.index);
    });

TEST(CliConform, ABodyFileWithoutThePlaceholderIsAUsageError) {
  kit::temp_dir dir;
  const std::string file = dir.file("body.json");
  std::ofstream(file) << R"({"merchant_order_id": "always-the-same"})";

  const auto r = run_text({"conform", "--url", url, "--token", "t", "--body-file", file});

  EXPECT_EQ(r.status, exit_usage);
  EXPECT_NE(r.err.find("no {{unique}} placeholder"), std::string::npos) << r.err;
}

TEST(CliConform, TheUsageTextNamesTheCommandAndItsExitStatuses) {
  const auto r = run_text({"conform", "--help"});
  EXPECT_NE(r.out.find("idem-cli conform --url URL --token T [--token2 T2]"), std::string::npos);
  EXPECT_NE(r.out.find("3 none failed but some could not be completed"), std::string::npos);
}

}  // namespace
}  // namespace idem::test
