// idem-cli against backends other than a healthy mock server (contract section 9's common
// options): what reaches the server (--header, --path, --profile, --lookup*, --attempt-timeout,
// --cacert), what is said when an intent does not succeed (stderr and the JSON's "error"),
// URLs that can never work (exit 2 at once), and Ctrl-C's list of unresolved keys. The
// backends are the mock server, a recording HTTP listener and the TLS peer of the curl tests,
// each on loopback in a thread of its own while idem-cli runs (in process through run_cli, or
// as a real process where the exit status or a signal is the point).
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "idem_cli/exit_status.hpp"
#include "idem_cli/run_cli.hpp"
#include "tests/idem/support/tls_test_pki.hpp"
#include "tests/support/processes/cli_process.hpp"
#include "tests/support/servers/recording_listener.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/unused_port.hpp"
#include "tests/tools/support/cli_run.hpp"

namespace idem::cli {
namespace {

using cli_test::order_json;
using cli_test::run;

using namespace std::chrono_literals;
using strings = std::vector<std::string>;

using kit::http_answer;
using kit::recording_listener;

std::optional<std::string> created(const std::string& head) {
  if (head.starts_with("POST ")) return http_answer(201, R"({"id":"ord_1","status":"CREATED"})");
  return http_answer(404, R"({"type":"about:blank","title":"Not Found"})");
}

// POSTs are held (their answers lost), lookups find nothing.
std::optional<std::string> writes_lost(const std::string& head) {
  if (head.starts_with("POST ")) return std::nullopt;
  return http_answer(404, R"({"type":"about:blank","title":"Not Found"})");
}

strings submit_to(const std::string& url, strings extra = {}) {
  strings args = {"submit",     "--url",  url,        "--token",       "t",    "--path",
                  "/v1/orders", "--data", order_json, "--business-id", "cli-1"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Request heads for a failure message.
std::string join(const strings& heads) {
  std::string out;
  for (const auto& h : heads)
    out += h + "\n---\n";
  return out;
}

// The value of header `name` in a request head ("" if absent).
std::string header_of(const std::string& head, const std::string& name) {
  const auto at = head.find("\r\n" + name + ": ");
  if (at == std::string::npos) return {};
  const auto start = at + name.size() + 4;
  return head.substr(start, head.find("\r\n", start) - start);
}

// --- saying why ----------------------------------------------------------------------------------

TEST(CliBackend, SubmitToARefusedPortSaysWhyOnStderrAndInTheJson) {
  const std::string url = "http://127.0.0.1:" + std::to_string(kit::unused_port());
  const auto r = run(submit_to(url, {"--deadline", "1s"}));
  EXPECT_EQ(r.status, exit_some_open);
  const std::string why = "connection refused (" + url + "/v1/orders)";
  EXPECT_EQ(r.json()["outcome"], "not_sent");
  EXPECT_EQ(r.json()["error"].get<std::string>(), why);
  EXPECT_EQ(r.err, "idem-cli: not_sent: " + why + "\n");
}

TEST(CliBackend, ARejectionSaysTheStatusAndTheStartOfTheBody) {
  recording_listener server([](const std::string&) {
    return http_answer(400, R"({"type":"https://shop.example/bad-sku","title":"Unknown SKU"})");
  });
  const auto r = run(submit_to(server.url(), {"--profile", "generic"}));
  EXPECT_EQ(r.status, exit_some_rejected);
  const std::string why =
      R"(HTTP 400 Bad Request: {"type":"https://shop.example/bad-sku","title":"Unknown SKU"})";
  EXPECT_EQ(r.json()["error"].get<std::string>(), why);
  EXPECT_EQ(r.err, "idem-cli: rejected: " + why + "\n");
}

TEST(CliBackend, MalformedOrUnsupportedUrlsExitTwoAtOnceSayingWhy) {
  for (const std::string url : {"ftp://127.0.0.1:21", "http//127.0.0.1:8080"}) {
    const auto r = kit::run_cli_to_exit(submit_to(url));
    EXPECT_EQ(r.exit_code(), exit_usage) << r.dump();
    EXPECT_EQ(r.out, "") << r.dump();
    EXPECT_TRUE(r.err.starts_with("idem-cli: bad --url '" + url + "': ")) << r.dump();
  }
  const auto ftp = kit::run_cli_to_exit(
      {"load", "--url", "ftp://127.0.0.1:21", "--token", "t", "--orders", "1"});
  EXPECT_EQ(ftp.exit_code(), exit_usage) << ftp.dump();
  EXPECT_TRUE(ftp.err.starts_with(
      "idem-cli: bad --url 'ftp://127.0.0.1:21': only http:// and https:// are supported\n"))
      << ftp.dump();
}

TEST(CliBackend, LoadCountsWhyPerReason) {
  recording_listener server([](const std::string&) {
    return http_answer(400, R"({"type":"about:blank","title":"Bad Request"})");
  });
  const auto r = run({"load", "--url", server.url(), "--token", "t", "--orders", "3", "--pay"});
  EXPECT_EQ(r.status, exit_some_open);  // the payments were never sent
  EXPECT_EQ(r.err,
            "idem-cli: 3 rejected: HTTP 400 Bad Request\n"
            "idem-cli: 3 not_sent: not submitted: its prerequisite did not succeed\n");
}

// --- what reaches the server ---------------------------------------------------------------------

TEST(CliBackend, ProfileGenericStillCreatesTheOrderOnTheMockServer) {
  kit::running_server server;
  const auto r =
      run(submit_to("http://127.0.0.1:" + std::to_string(server.port()), {"--profile", "generic"}));
  EXPECT_EQ(r.status, exit_all_succeeded) << r.out << r.err;
  EXPECT_EQ(r.json()["outcome"], "succeeded");
  EXPECT_EQ(r.json()["status"], 201);
  EXPECT_EQ(r.err, "");
}

TEST(CliBackend, HeadersArriveWithTheCredentialsAndTheKey) {
  recording_listener server(created);
  const auto r =
      run(submit_to(server.url(), {"--header", "X-Api-Version: 2", "--header", "X-Trace:  t-1 "}));
  ASSERT_EQ(r.status, exit_all_succeeded) << r.out << r.err;
  const auto posts = server.heads_starting("POST /v1/orders HTTP/1.1");
  ASSERT_EQ(posts.size(), 1u);
  EXPECT_EQ(header_of(posts[0], "X-Api-Version"), "2") << posts[0];
  EXPECT_EQ(header_of(posts[0], "X-Trace"), "t-1") << posts[0];
  EXPECT_EQ(header_of(posts[0], "Authorization"), "Bearer t") << posts[0];
  EXPECT_EQ(header_of(posts[0], "Idempotency-Key"), r.json()["key"].get<std::string>()) << posts[0];
}

TEST(CliBackend, LoadPostsItsOrdersToItsPathWithTheHeaders) {
  recording_listener server(created);
  const auto r = run({"load", "--url", server.url(), "--token", "t", "--orders", "2", "--path",
                      "/api/v2/orders", "--header", "X-Api-Version: 2"});
  ASSERT_EQ(r.status, exit_all_succeeded) << r.out << r.err;
  const auto posts = server.heads_starting("POST /api/v2/orders HTTP/1.1");
  ASSERT_EQ(posts.size(), 2u) << join(server.heads());
  for (const auto& head : posts)
    EXPECT_EQ(header_of(head, "X-Api-Version"), "2") << head;
}

TEST(CliBackend, PresetLookupAsksTheOrdersApiWhenEveryAnswerIsLost) {
  recording_listener server(writes_lost);
  const auto r = run(submit_to(server.url(), {"--deadline", "2s", "--attempt-timeout", "300ms"}));
  EXPECT_EQ(r.status, exit_some_open);
  EXPECT_EQ(r.json()["outcome"], "unresolved");
  EXPECT_FALSE(server.heads_starting("GET /v1/orders?merchant_order_id=cli-1 ").empty())
      << join(server.heads());
  EXPECT_TRUE(r.err.starts_with("idem-cli: unresolved: ")) << r.err;
}

TEST(CliBackend, LookupNoneNeverAsks) {
  recording_listener server(writes_lost);
  const auto r = run(submit_to(
      server.url(), {"--deadline", "2s", "--attempt-timeout", "300ms", "--lookup", "none"}));
  EXPECT_EQ(r.status, exit_some_open);
  EXPECT_EQ(r.json()["outcome"], "unresolved");
  EXPECT_TRUE(server.heads_starting("GET ").empty()) << join(server.heads());
}

TEST(CliBackend, LookupUrlIsTheGetThatIsAsked) {
  recording_listener server(writes_lost);
  const auto r =
      run(submit_to(server.url(), {"--deadline", "2s", "--attempt-timeout", "300ms", "--lookup-url",
                                   "/lookup/{business_id}", "--lookup-match", "/amount_minor"}));
  EXPECT_EQ(r.status, exit_some_open);
  const auto gets = server.heads_starting("GET ");
  ASSERT_FALSE(gets.empty()) << join(server.heads());
  for (const auto& head : gets)
    EXPECT_TRUE(head.starts_with("GET /lookup/cli-1 HTTP/1.1")) << head;
}

TEST(CliBackend, AttemptTimeoutLetsSeveralAttemptsIntoTheDeadline) {
  // A 3 s deadline without --attempt-timeout: the only attempt waits for the whole budget.
  recording_listener once(writes_lost);
  EXPECT_EQ(run(submit_to(once.url(), {"--deadline", "3s", "--lookup", "none"})).status,
            exit_some_open);
  EXPECT_EQ(once.heads_starting("POST ").size(), 1u);
  recording_listener several(writes_lost);
  EXPECT_EQ(run(submit_to(several.url(),
                          {"--deadline", "3s", "--lookup", "none", "--attempt-timeout", "250ms"}))
                .status,
            exit_some_open);
  EXPECT_GE(several.heads_starting("POST ").size(), 2u);
}

// --- HTTPS ---------------------------------------------------------------------------------------

TEST(CliBackend, CacertTrustsAPrivateCaAndWithoutItTheReasonIsTls) {
  test::tls::test_pki pki("IP:127.0.0.1");
  test::tls::background_tls_peer peer(pki);
  const std::string url = "https://127.0.0.1:" + std::to_string(peer.port());

  const auto trusted = run(submit_to(url, {"--cacert", pki.ca_file}));
  EXPECT_EQ(trusted.status, exit_all_succeeded) << trusted.out << trusted.err;
  EXPECT_EQ(trusted.json()["status"], 200);

  const auto untrusted = run(submit_to(url, {"--deadline", "1s"}));
  EXPECT_EQ(untrusted.status, exit_some_open);
  EXPECT_EQ(untrusted.json()["outcome"], "not_sent");
  EXPECT_EQ(untrusted.json()["attempts"], 1);
  EXPECT_TRUE(
      untrusted.err.starts_with("idem-cli: not_sent: TLS failed: the server's "
                                "certificate is not trusted"))
      << untrusted.err;
}

// --- Ctrl-C
// ---------------------------------------------------------------------------------------

// The lines of `text` that are exactly one of `keys`.
std::size_t key_lines(const std::string& text, const strings& keys) {
  std::size_t n = 0;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    for (const auto& k : keys)
      n += line == k ? 1 : 0;
  }
  return n;
}

TEST(CliBackend, CtrlCOnALoadListsTheKeysOfTheIntentsLeftUnresolved) {
  recording_listener server(writes_lost);
  kit::cli_process cli({"load", "--url", server.url(), "--token", "t", "--orders", "2",
                        "--concurrency", "2", "--deadline", "60s"});
  ASSERT_TRUE(server.wait_for_requests(2)) << "the two orders never arrived";
  ::kill(cli.pid(), SIGINT);
  auto r = cli.wait_for(30s);
  ASSERT_TRUE(r) << "idem-cli did not end after Ctrl-C";
  EXPECT_EQ(r->exit_code(), exit_some_open) << r->dump();
  const auto summary = nlohmann::json::parse(r->out);
  EXPECT_EQ(summary["interrupted"], true);
  EXPECT_EQ(summary["unresolved"], 2);
  strings keys;
  for (const auto& head : server.heads_starting("POST "))
    keys.push_back(header_of(head, "Idempotency-Key"));
  ASSERT_EQ(keys.size(), 2u);
  EXPECT_EQ(key_lines(r->err, keys), 2u) << r->dump();
  EXPECT_NE(r->err.find("2 intents are unresolved"), std::string::npos) << r->dump();
  EXPECT_NE(r->err.find("without --journal"), std::string::npos) << r->dump();
}

TEST(CliBackend, CtrlCOnAJournaledSubmitSaysHowToResumeIt) {
  recording_listener server(writes_lost);
  kit::temp_dir dir;
  const std::string journal = dir.file("shop.journal");
  kit::cli_process cli(submit_to(server.url(), {"--deadline", "60s", "--journal", journal}));
  ASSERT_TRUE(server.wait_for_requests(1)) << "the order never arrived";
  ::kill(cli.pid(), SIGINT);
  auto r = cli.wait_for(30s);
  ASSERT_TRUE(r) << "idem-cli did not end after Ctrl-C";
  EXPECT_EQ(r->exit_code(), exit_some_open) << r->dump();
  const auto outcome = nlohmann::json::parse(r->out);
  EXPECT_EQ(outcome["outcome"], "unresolved");
  EXPECT_EQ(key_lines(r->err, {outcome["key"].get<std::string>()}), 1u) << r->dump();
  EXPECT_NE(
      r->err.find("idem-cli resume --url " + server.url() + " --token TOKEN --journal " + journal),
      std::string::npos)
      << r->dump();
}

}  // namespace
}  // namespace idem::cli
