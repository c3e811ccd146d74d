// idem-cli (tools/idem_cli): command-line parsing, the JSON it prints, the exit status, the
// submit and load commands end to end against the in-process mock server, and run_cli, the
// dispatch main() is made of (what goes to stdout and stderr, and the exit status).
#include <gtest/gtest.h>

#include <chrono>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "idem/orders.hpp"
#include "idem_cli/command_line/command_line.hpp"
#include "idem_cli/exit_status.hpp"
#include "idem_cli/load/latency.hpp"
#include "idem_cli/load/load_command.hpp"
#include "idem_cli/load/progress_bar.hpp"
#include "idem_cli/lookup_choice.hpp"
#include "idem_cli/run_cli.hpp"
#include "idem_cli/submit_command.hpp"
#include "idem_cli/summary.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/tools/support/cli_run.hpp"

namespace idem::cli {
namespace {

using cli_test::order_json;
using cli_test::run;
using cli_test::usage_message;

using namespace std::chrono_literals;
using strings = std::vector<std::string>;

TEST(CliCommandLine, LoadFlagsAreParsedInBothForms) {
  auto cmd = parse_command_line({"load", "--url", "http://h:1", "--token=t", "--orders", "300",
                                 "--pay", "--concurrency=8", "--deadline", "2m"});
  auto* load = std::get_if<load_args>(&cmd);
  ASSERT_NE(load, nullptr) << usage_message({});
  EXPECT_EQ(load->common.url, "http://h:1");
  EXPECT_EQ(load->common.token, "t");
  EXPECT_EQ(load->orders, 300u);
  EXPECT_TRUE(load->pay);
  EXPECT_EQ(load->concurrency, 8u);
  EXPECT_EQ(load->common.deadline, 120s);
}

TEST(CliCommandLine, LoadDefaultsFollowTheContract) {
  auto cmd = parse_command_line({"load", "--url", "http://h", "--token", "t", "--orders", "1"});
  auto* load = std::get_if<load_args>(&cmd);
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->concurrency, 16u);
  EXPECT_FALSE(load->pay);
  EXPECT_EQ(load->common.deadline, 30s);
  EXPECT_EQ(load->path, "/v1/orders");
  EXPECT_EQ(load->common.profile, "ietf");
  EXPECT_FALSE(load->common.lookup.none);
  EXPECT_FALSE(load->common.lookup.overrides());
  EXPECT_TRUE(load->common.headers.empty());
  EXPECT_EQ(load->common.cacert, "");
  EXPECT_EQ(load->common.attempt_timeout, 0ms);  // the client's default
}

// 5,000 in flight (the performance harness's largest point) is accepted; past 10,000 is refused.
TEST(CliCommandLine, ConcurrencyGoesUpToTenThousand) {
  const strings base = {"load", "--url", "http://h", "--token", "t", "--orders", "1"};
  auto with = [&](const char* c) {
    strings all = base;
    all.insert(all.end(), {"--concurrency", c});
    return parse_command_line(all);
  };
  auto parsed = with("5000");
  auto* five_thousand = std::get_if<load_args>(&parsed);
  ASSERT_NE(five_thousand, nullptr);
  EXPECT_EQ(five_thousand->concurrency, 5'000u);
  auto most = with("10000");
  ASSERT_NE(std::get_if<load_args>(&most), nullptr);
  auto too_many = with("10001");
  auto* error = std::get_if<usage_error>(&too_many);
  ASSERT_NE(error, nullptr);
  EXPECT_EQ(error->message, "bad --concurrency '10001' (1 to 10000)");
}

TEST(CliCommandLine, SubmitFlagsAreParsed) {
  auto cmd = parse_command_line({"submit", "--url", "http://h", "--token", "t", "--method", "POST",
                                 "--path", "/v1/orders", "--data", order_json, "--business-id",
                                 "cli-1", "--deadline", "500ms"});
  auto* submit = std::get_if<submit_args>(&cmd);
  ASSERT_NE(submit, nullptr);
  EXPECT_EQ(submit->path, "/v1/orders");
  EXPECT_EQ(submit->business_id, "cli-1");
  EXPECT_EQ(submit->common.deadline, 500ms);
}

TEST(CliCommandLine, BadCommandLinesAreUsageErrors) {
  const strings base = {"load", "--url", "http://h", "--token", "t"};
  auto with = [&](strings extra) {
    strings all = base;
    all.insert(all.end(), extra.begin(), extra.end());
    return all;
  };
  EXPECT_EQ(usage_message({}), "missing command");
  EXPECT_EQ(usage_message({"frobnicate"}), "unknown command 'frobnicate'");
  EXPECT_EQ(usage_message(base), "missing --orders");
  EXPECT_EQ(usage_message(with({"--orders", "0"})), "bad --orders '0' (a count >= 1)");
  EXPECT_EQ(usage_message(with({"--orders", "12x"})), "bad --orders '12x' (a count >= 1)");
  EXPECT_EQ(usage_message(with({"--orders", "1", "--bogus", "1"})), "unknown flag --bogus");
  EXPECT_EQ(usage_message(with({"--orders", "1", "--orders", "2"})), "--orders given twice");
  EXPECT_EQ(usage_message(with({"--orders"})), "--orders needs a value");
  EXPECT_EQ(usage_message(with({"--orders", "1", "--pay=yes"})), "--pay takes no value");
  EXPECT_EQ(usage_message(with({"--orders", "1", "--deadline", "soon"})),
            "bad --deadline 'soon' (e.g. 30s, 500ms, 1m30s)");
  EXPECT_EQ(usage_message(with({"--orders", "1", "stray"})), "unexpected argument 'stray'");
  EXPECT_EQ(usage_message({"submit", "--url", "http://h", "--token", "t", "--path", "/v1/orders",
                           "--data", "{not json", "--business-id", "x"}),
            "--data is not valid JSON");
  EXPECT_EQ(usage_message({"submit", "--url", "http://h", "--token", "t", "--path", "/v1/orders",
                           "--data", "{}"}),
            "missing --business-id");
}

TEST(CliCommandLine, JournalFlagsAndCommands) {
  auto load = std::get<load_args>(parse_command_line(
      {"load", "--url", "http://h", "--token", "t", "--orders", "1", "--journal", "j.db"}));
  EXPECT_EQ(load.journal, "j.db");
  auto submit = std::get<submit_args>(
      parse_command_line({"submit", "--url", "http://h", "--token", "t", "--path", "/v1/orders",
                          "--data", "{}", "--business-id", "x", "--journal", "j.db"}));
  EXPECT_EQ(submit.journal, "j.db");
  auto resume = std::get<resume_args>(
      parse_command_line({"resume", "--url", "http://h", "--token", "t", "--journal", "j.db",
                          "--concurrency", "4", "--deadline", "5s"}));
  EXPECT_EQ(resume.journal, "j.db");
  EXPECT_EQ(resume.concurrency, 4u);
  EXPECT_EQ(resume.common.deadline, std::chrono::seconds(5));
  auto journal =
      std::get<journal_args>(parse_command_line({"journal", "--journal", "j.db", "--show", "k-1"}));
  EXPECT_EQ(journal.journal, "j.db");
  EXPECT_EQ(journal.show, "k-1");
  EXPECT_EQ(usage_message({"resume", "--journal", "j.db"}), "missing --token");
  EXPECT_EQ(usage_message({"resume", "--url", "http://h", "--token", "t"}), "missing --journal");
  EXPECT_EQ(usage_message({"journal"}), "missing --journal");
  EXPECT_EQ(usage_message({"journal", "--journal", "j.db", "--show="}), "--show needs a key");
  EXPECT_EQ(usage_message({"journal", "--journal", "j.db", "--url", "http://h"}),
            "unknown flag --url");
}

TEST(CliCommandLine, HelpIsNotAnError) {
  EXPECT_TRUE(std::holds_alternative<help_request>(parse_command_line({"--help"})));
}

// --deadline takes every form the mock server's flags take (the parser is shared: common/,
// tested in tests/mock_server/duration_test.cpp), but only a positive duration.
std::optional<std::chrono::milliseconds> load_deadline(const std::string& text) {
  auto cmd = parse_command_line(
      {"load", "--url", "http://h", "--token", "t", "--orders", "1", "--deadline", text});
  auto* load = std::get_if<load_args>(&cmd);
  if (load == nullptr) return std::nullopt;
  return load->common.deadline;
}

TEST(CliDeadline, AcceptsTheSharedDurationForms) {
  EXPECT_EQ(load_deadline("30s"), 30s);
  EXPECT_EQ(load_deadline("30"), 30s);
  EXPECT_EQ(load_deadline("250ms"), 250ms);
  EXPECT_EQ(load_deadline("2m"), 2min);
  EXPECT_EQ(load_deadline("1h"), 1h);
  EXPECT_EQ(load_deadline("1m30s"), 90s);
  EXPECT_EQ(load_deadline("3d"), 72h);
}

TEST(CliDeadline, RefusesGarbageAndZero) {
  for (const char* bad : {"", "s", "-1s", "1.5s", "1h30", "99999999999999999999h"}) {
    EXPECT_EQ(load_deadline(bad), std::nullopt) << bad;
  }
  const strings base = {"submit",     "--url",  "http://h", "--token",       "t", "--path",
                        "/v1/orders", "--data", "{}",       "--business-id", "x", "--deadline"};
  for (const char* zero : {"0", "0s", "0ms", "0h0m"}) {
    strings args = base;
    args.emplace_back(zero);
    EXPECT_EQ(usage_message(args), "--deadline must be positive") << zero;
  }
}

TEST(CliExitStatus, MapsOutcomesAsTheContractSays) {
  EXPECT_EQ(exit_status_for({.succeeded = 5}), 0);
  EXPECT_EQ(exit_status_for({}), 0);
  EXPECT_EQ(exit_status_for({.succeeded = 5, .rejected = 1}), 1);
  EXPECT_EQ(exit_status_for({.succeeded = 5, .rejected = 1, .unresolved = 1}), 3);
  EXPECT_EQ(exit_status_for({.not_sent = 1}), 3);
  EXPECT_EQ(exit_usage, 2);
  EXPECT_EQ(exit_setup_failed, 4);  // not 2: the contract keeps 2 for usage errors
}

TEST(CliExitStatus, ARunThatCountedFewerIntentsThanItHadNeverPassesForSuccess) {
  EXPECT_EQ(exit_status_for({}, 40), 3);  // nothing counted: nothing is known to have succeeded
  EXPECT_EQ(exit_status_for({.succeeded = 39}, 40), 3);
  EXPECT_EQ(exit_status_for({.succeeded = 40}, 40), 0);
  EXPECT_EQ(exit_status_for({.succeeded = 39, .rejected = 1}, 40), 1);
  EXPECT_EQ(exit_status_for({}, 0), 0);
}

TEST(CliExitStatus, EachOutcomeKindCountsInItsOwnColumn) {
  outcome_counts c;
  add(c, outcome_kind::succeeded);
  add(c, outcome_kind::succeeded);
  add(c, outcome_kind::rejected);
  add(c, outcome_kind::not_sent);
  add(c, outcome_kind::unresolved);
  add(c, outcome_kind::unresolved);
  add(c, outcome_kind::unresolved);
  EXPECT_EQ(c.succeeded, 2u);
  EXPECT_EQ(c.rejected, 1u);
  EXPECT_EQ(c.not_sent, 1u);
  EXPECT_EQ(c.unresolved, 3u);
}

TEST(CliLatency, PercentileIsTheNearestRank) {
  std::vector<std::chrono::microseconds> samples;
  for (int n = 100; n >= 1; --n)
    samples.emplace_back(n);
  EXPECT_EQ(percentile(samples, 50), std::chrono::microseconds{50});
  EXPECT_EQ(percentile(samples, 99), std::chrono::microseconds{99});
  std::vector<std::chrono::microseconds> none;
  EXPECT_EQ(percentile(none, 50), std::chrono::microseconds{0});
}

TEST(CliSummary, LoadSummaryHasExactlyTheContractFields) {
  const load_summary s{.intents = 10,
                       .counts = {.succeeded = 7, .rejected = 1, .not_sent = 1, .unresolved = 1},
                       .recovered_by_lookup = 2,
                       .attempts = 15,
                       .retries = 5,
                       .p50 = std::chrono::microseconds{1'234},
                       .p99 = std::chrono::microseconds{20'000},
                       .elapsed = 900ms};
  const auto j = to_json(s);
  strings keys;
  for (const auto& [k, v] : j.items())
    keys.push_back(k);
  EXPECT_EQ(keys,
            (strings{"attempts", "elapsed_ms", "intents", "not_sent", "p50_ms", "p99_ms",
                     "recovered_by_lookup", "rejected", "retries", "succeeded", "unresolved"}));
  EXPECT_EQ(j["succeeded"], 7);
  EXPECT_EQ(j["not_sent"], 1);
  EXPECT_EQ(j["retries"], 5);
  EXPECT_DOUBLE_EQ(j["p50_ms"].get<double>(), 1.2);
  EXPECT_DOUBLE_EQ(j["p99_ms"].get<double>(), 20.0);
  EXPECT_EQ(j["elapsed_ms"], 900);
}

TEST(CliSummary, OutcomeJsonCarriesTheDecidingAnswer) {
  const auto j = to_json(outcome(outcome_fields{.kind = outcome_kind::succeeded,
                                                .status = 201,
                                                .body = R"({"id":"ord_1"})",
                                                .replayed = true,
                                                .attempts = 2,
                                                .key = "k-1",
                                                .elapsed = 42ms}));
  EXPECT_EQ(j["outcome"], "succeeded");
  EXPECT_EQ(j["status"], 201);
  EXPECT_EQ(j["body"]["id"], "ord_1");
  EXPECT_EQ(j["replayed"], true);
  EXPECT_EQ(j["recovered_by_lookup"], false);
  EXPECT_EQ(j["attempts"], 2);
  EXPECT_EQ(j["key"], "k-1");
  EXPECT_EQ(j["elapsed_ms"], 42);
  EXPECT_FALSE(j.contains("error"));
}

TEST(CliSummary, ADoubleExecutionFoundByTheLookupIsNeverSilent) {
  // Contract section 8: the lookup found two records of one intent.
  const auto j = to_json(outcome(outcome_fields{.kind = outcome_kind::succeeded,
                                                .status = 200,
                                                .recovered_by_lookup = true,
                                                .matching_records = 2}));
  EXPECT_EQ(j["matching_records"], 2);
  EXPECT_FALSE(to_json(outcome(outcome_fields{.kind = outcome_kind::succeeded, .status = 201}))
                   .contains("matching_records"));
  load_summary s;
  s.intents = 5;
  EXPECT_FALSE(to_json(s).contains("duplicates_found"));
  s.duplicates_found = 1;
  EXPECT_EQ(to_json(s)["duplicates_found"], 1);
  EXPECT_NE(duplicates_words(2).find("more than once"), std::string::npos);
}

TEST(CliSummary, OutcomeJsonWithoutAnswerHasNullsAndNamesAClientBug) {
  const auto open = to_json(outcome{});
  EXPECT_EQ(open["outcome"], "unresolved");
  EXPECT_TRUE(open["status"].is_null());
  EXPECT_TRUE(open["body"].is_null());
  EXPECT_EQ(open["error"], "no answer");  // not succeeded: always says why
  const auto bug = to_json(outcome(outcome_fields{.kind = outcome_kind::rejected,
                                                  .status = 422,
                                                  .body = "not json",
                                                  .error = "idempotency-key-mismatch"}));
  EXPECT_EQ(bug["error"], "idempotency-key-mismatch");
  EXPECT_EQ(bug["body"], "not json");
}

TEST(CliProgress, RendersCountsAndAFilledBar) {
  const auto line = render_progress(
      {.done = 5, .total = 10, .succeeded = 4, .open = 1, .rejected = 0, .elapsed = 1s}, 10);
  EXPECT_EQ(line, "[#####-----] 5/10  ok 4  rejected 0  open 1  5.0/s");
}

TEST(CliProgress, DisabledBarWritesNothing) {
  std::ostringstream out;
  progress_bar bar(out, /*enabled=*/false);
  bar.update({.done = 1, .total = 2});
  bar.finish({.done = 2, .total = 2});
  EXPECT_EQ(out.str(), "");
}

TEST(CliSubmit, LookupFollowsThePath) {
  EXPECT_EQ(lookup_for("/v1/orders", "m-1"), orders::order_created_lookup("m-1"));
  EXPECT_EQ(lookup_for("/v1/orders/ord_1/payments", "ord_1"),
            orders::payment_captured_lookup("ord_1"));
  EXPECT_EQ(lookup_for("/v1/orders/ord_1/cancel", "ord_1"),
            orders::order_cancelled_lookup("ord_1"));
  EXPECT_FALSE(lookup_for("/v1/other", "x").enabled());
}

std::string url_of(const kit::running_server& server) {
  return "http://127.0.0.1:" + std::to_string(server.port());
}

TEST(CliSubmit, CreatesAnOrderAndPrintsItsOutcome) {
  kit::running_server server;
  submit_args args{.common = {.url = url_of(server), .token = "shop-1"},
                   .path = "/v1/orders",
                   .data = order_json,
                   .business_id = "cli-1"};
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_submit(args, out, err), exit_all_succeeded);
  EXPECT_EQ(err.str(), "");
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["outcome"], "succeeded");
  EXPECT_EQ(j["status"], 201);
  EXPECT_EQ(j["body"]["merchant_order_id"], "cli-1");
}

TEST(CliSubmit, ADefiniteFailureIsRejectedWithExitStatusOne) {
  kit::running_server server;
  submit_args args{.common = {.url = url_of(server), .token = "shop-1"},
                   .path = "/v1/orders/ord_missing/payments",
                   .data = R"({"amount_minor":1500,"currency":"EUR","payment_method":"card"})",
                   .business_id = "ord_missing"};
  std::ostringstream out;
  std::ostringstream err;
  EXPECT_EQ(run_submit(args, out, err), exit_some_rejected);
  const auto j = nlohmann::json::parse(out.str());
  EXPECT_EQ(j["status"], 404);
  // Why, in words: the status and the start of the problem the server answered.
  EXPECT_TRUE(j["error"].get<std::string>().starts_with("HTTP 404 Not Found: {")) << j["error"];
  EXPECT_TRUE(err.str().starts_with("idem-cli: rejected: HTTP 404 Not Found: {")) << err.str();
}

TEST(CliLoad, OrdersAndTheirPaymentsAllSucceed) {
  kit::running_server server;
  std::ostringstream progress_out;
  const load_summary s = run_load({.common = {.url = url_of(server), .token = "shop-1"},
                                   .orders = 20,
                                   .concurrency = 4,
                                   .pay = true},
                                  progress_out, /*show_progress=*/false);
  EXPECT_EQ(s.intents, 40u);
  EXPECT_EQ(s.counts.succeeded, 40u);
  EXPECT_EQ(exit_status_for(s.counts), exit_all_succeeded);
  EXPECT_EQ(s.attempts, 40u);
  EXPECT_EQ(s.retries, 0u);
  EXPECT_EQ(progress_out.str(), "");
}

TEST(CliLoad, PaymentsOfOrdersThatNeverSucceededCountAsNotSent) {
  // Nothing listens on port 1: every create is not sent, so no payment is ever created.
  const load_summary s =
      run_load({.common = {.url = "http://127.0.0.1:1", .token = "t", .deadline = 1s},
                .orders = 3,
                .pay = true},
               std::cerr, /*show_progress=*/false);
  EXPECT_EQ(s.intents, 6u);
  EXPECT_EQ(s.counts.not_sent, 6u);
  EXPECT_EQ(s.failures.count(outcome_kind::not_sent, "connection refused (http://127.0.0.1:1)"),
            3u);
  EXPECT_EQ(
      s.failures.count(outcome_kind::not_sent, "not submitted: its prerequisite did not succeed"),
      3u);
  EXPECT_EQ(exit_status_for(s.counts), exit_some_open);
}

TEST(CliRun, ABadFlagIsAUsageErrorOnStderrOnly) {
  const auto r =
      run({"load", "--url", "http://h", "--token", "t", "--orders", "1", "--bogus", "1"});
  EXPECT_EQ(r.status, exit_usage);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "idem-cli: unknown flag --bogus\n'idem-cli load --help' lists its flags.\n");
}

TEST(CliRun, HelpPrintsTheUsageOnStdoutAndSucceeds) {
  for (const char* help : {"--help", "-h", "help"}) {
    const auto r = run({help});
    EXPECT_EQ(r.status, exit_all_succeeded) << help;
    EXPECT_EQ(r.out, usage_text()) << help;
    EXPECT_EQ(r.err, "") << help;
  }
}

TEST(CliRun, UsageDocumentsEveryExitStatusAndTheDurationForms) {
  const std::string usage = usage_text();
  for (const char* part : {"0 every intent succeeded", "1 some rejected", "2 usage error",
                           "3 some unresolved or not sent", "4 could not start", "1m30s"}) {
    EXPECT_NE(usage.find(part), std::string::npos) << part;
  }
}

TEST(CliRun, LoadAgainstADeadPortPrintsItsSummaryAndExitsThree) {
  // Nothing listens on port 1: the order is never sent.
  const auto r = run(
      {"load", "--url", "http://127.0.0.1:1", "--token", "t", "--orders", "1", "--deadline", "1s"});
  EXPECT_EQ(r.status, exit_some_open);
  // No progress bar asked for; why the intent did not succeed, counted.
  EXPECT_EQ(r.err, "idem-cli: 1 not_sent: connection refused (http://127.0.0.1:1)\n");
  ASSERT_FALSE(r.out.empty());
  EXPECT_EQ(r.out.back(), '\n');
  EXPECT_EQ(r.out.find('\n'), r.out.size() - 1) << "one line: " << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["intents"], 1);
  EXPECT_EQ(j["not_sent"], 1);
  EXPECT_EQ(j["succeeded"], 0);
}

TEST(CliRun, SubmitPrintsTheOutcomeOnStdout) {
  kit::running_server server;
  const auto r = run({"submit", "--url", url_of(server), "--token", "shop-1", "--path",
                      "/v1/orders", "--data", order_json, "--business-id", "cli-1"});
  EXPECT_EQ(r.status, exit_all_succeeded);
  EXPECT_EQ(r.err, "");
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outcome"], "succeeded");
  EXPECT_EQ(j["status"], 201);
}

}  // namespace
}  // namespace idem::cli
