// idem-cli never prints the bearer token or the payload it sends (on stdout or stderr), whatever
// the outcome: success, rejection, not sent, unresolved, with --journal, resume, journal, load,
// Ctrl-C, usage errors. Printing keys is its documented interface (the outcome's "key", the
// keys left unresolved after Ctrl-C, so that they can be resumed), and so is the answer's body;
// the payload's marker sits in a field the mock server ignores, so it can only come out of
// idem-cli's own mouth. idem-cli runs as a real process against the mock server (a child
// process, its own output in a file) or a listener that never answers.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/fault_rules.hpp"
#include "tests/support/processes/cli_process.hpp"
#include "tests/support/servers/recording_listener.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/support/unused_port.hpp"

namespace idem::kit {
namespace {

using namespace std::chrono_literals;
using strings = std::vector<std::string>;

const std::string token = "tok-secret-51f9a0";
const std::string data = "dat-secret-c7e204";

// A create-order body for `merchant_order_id` with `data` in "note", a field the server ignores
// (it never comes back in an answer). `currency` "eur" makes the server refuse it.
std::string order_json(const std::string& merchant_order_id, const std::string& currency = "EUR") {
  return nlohmann::json{{"merchant_order_id", merchant_order_id},
                        {"customer_id", "c-1"},
                        {"currency", currency},
                        {"amount_minor", 1500},
                        {"items", {{{"sku", "book"}, {"quantity", 3}, {"unit_price_minor", 500}}}},
                        {"note", data}}
      .dump();
}

strings submit(const std::string& url, const std::string& body, strings extra = {}) {
  strings args = {"submit",     "--url",  url,  "--token",       token, "--path",
                  "/v1/orders", "--data", body, "--business-id", "m"};
  args.insert(args.end(), extra.begin(), extra.end());
  return args;
}

// Runs idem-cli, checks its exit status, and that neither the token nor the payload's marker
// is anywhere in what it wrote. Returns its outcome or summary (stdout as JSON).
nlohmann::json run_clean(const strings& args, int exit_status) {
  SCOPED_TRACE(args.front());
  const auto r = run_cli_to_exit(args);
  EXPECT_EQ(r.exit_code(), exit_status) << r.dump();
  for (const auto& secret : {token, data}) {
    EXPECT_EQ(r.out.find(secret), std::string::npos) << secret << " on stdout:\n" << r.dump();
    EXPECT_EQ(r.err.find(secret), std::string::npos) << secret << " on stderr:\n" << r.dump();
  }
  return nlohmann::json::parse(r.out, nullptr, /*allow_exceptions=*/false);
}

class CliLogHygiene : public ::testing::Test {
 protected:
  temp_dir dir;
  server_process server{
      {"--listen", "127.0.0.1:0", "--db", ":memory:", "--admin-token", admin_token},
      dir.file("server.log")};
  api_client admin{server.port()};
  std::string url = "http://127.0.0.1:" + std::to_string(server.port());
  std::string journal = dir.file("shop.journal");
};

TEST_F(CliLogHygiene, NoOutcomeOfSubmitResumeJournalOrLoadPrintsTheTokenOrThePayload) {
  EXPECT_EQ(run_clean(submit(url, order_json("m-1")), 0)["outcome"], "succeeded");
  EXPECT_EQ(run_clean(submit(url, order_json("m-2", "eur")), 1)["outcome"], "rejected");
  const auto refused = "http://127.0.0.1:" + std::to_string(unused_port());
  EXPECT_EQ(run_clean(submit(refused, order_json("m-3"), {"--deadline", "1s"}), 3)["outcome"],
            "not_sent");

  // Every write reset: the journaled intent ends unresolved, and so does its first resume.
  ASSERT_NO_FATAL_FAILURE(admin.set_faults(only(on_create("reset_before_processing"))));
  const auto open =
      run_clean(submit(url, order_json("m-4"), {"--deadline", "1s", "--journal", journal}), 3);
  EXPECT_EQ(open["outcome"], "unresolved");
  const strings resume = {"resume",    "--url", url,          "--token", token,
                          "--journal", journal, "--deadline", "1s"};
  EXPECT_EQ(run_clean(resume, 3)["unresolved"], 1);
  admin.admin("DELETE", "/_mock/faults");
  EXPECT_EQ(run_clean(resume, 0)["succeeded"], 1);
  EXPECT_EQ(run_clean({"journal", "--journal", journal}, 0)["succeeded"], 1);
  EXPECT_EQ(
      run_clean({"journal", "--journal", journal, "--show", open.value("key", std::string("?"))},
                0)["state"],
      "succeeded");

  ASSERT_NO_FATAL_FAILURE(admin.set_faults(
      only(on_create("status_before_processing", {{"status", 503}, {"times", 2}}))));
  EXPECT_EQ(run_clean({"load", "--url", url, "--token", token, "--orders", "3", "--pay",
                       "--journal", dir.file("load.journal")},
                      0)["succeeded"],
            6);
}

// Ctrl-C lists the keys left unresolved and how to resume them, with TOKEN for the token.
TEST_F(CliLogHygiene, CtrlCPrintsTheKeysToResumeButNeitherTokenNorPayload) {
  recording_listener silent([](const std::string&) -> std::optional<std::string> { return {}; });
  cli_process cli(
      submit(silent.url(), order_json("m-5"), {"--deadline", "60s", "--journal", journal}));
  ASSERT_TRUE(silent.wait_for_requests(1)) << "the order never arrived";
  ::kill(cli.pid(), SIGINT);
  auto r = cli.wait_for(30s);
  ASSERT_TRUE(r) << "idem-cli did not end after Ctrl-C";
  EXPECT_EQ(r->exit_code(), 3) << r->dump();
  EXPECT_NE(r->err.find("--token TOKEN"), std::string::npos) << r->dump();
  for (const auto& secret : {token, data}) {
    EXPECT_EQ(r->out.find(secret), std::string::npos) << secret << '\n' << r->dump();
    EXPECT_EQ(r->err.find(secret), std::string::npos) << secret << '\n' << r->dump();
  }
}

// A usage error explains itself without repeating a credential given in the wrong place (a
// token in --header, a password in --url) or a payload that is not JSON.
TEST_F(CliLogHygiene, UsageErrorsRepeatNoCredentialAndNoPayload) {
  run_clean(submit(url, order_json("m-6"), {"--header", "Authorization: Bearer " + token}), 2);
  run_clean(submit(url, order_json("m-6"), {"--header", "X-Api-Key: " + token + "\x01"}), 2);
  run_clean(submit(url, order_json("m-6"), {"--header", token}), 2);
  run_clean(submit("http://user:" + token + "@127.0.0.1:" + std::to_string(server.port()),
                   order_json("m-6"), {"--deadline", "1s"}),
            2);
  run_clean(submit("http://" + token + "@127.0.0.1:1", order_json("m-6"), {"--deadline", "1s"}), 2);
  run_clean({"load", "--url", "https://user:" + token + "@127.0.0.1:1", "--token", "t", "--orders",
             "1", "--deadline", "1s"},
            2);
  run_clean(submit(url, order_json("m-6").substr(1)), 2);
  EXPECT_EQ(admin.stats()["requests"], 0);
}

}  // namespace
}  // namespace idem::kit
