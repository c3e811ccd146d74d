#pragma once
// Shared by the real-process tests of idem-cli's journal (cli_crash_test, cli_journal_test): a
// fresh directory per test for the journal and the server's database, the mock server as a
// child process (its --db file outlives any client), and the idem-cli commands run against it.

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/http/api_client.hpp"
#include "tests/support/processes/cli_process.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/temp_dir.hpp"

namespace idem::test::cli_journal {

using namespace std::chrono_literals;
using idem::kit::api_client;
using idem::kit::cli_options;
using idem::kit::cli_process;
using idem::kit::cli_result;
using strings = std::vector<std::string>;

// The tenant the CLI and the api_client act as.
inline constexpr const char* token = "tenant-a";

// The last line of what a command printed, as JSON (discarded if it is not JSON).
inline nlohmann::json last_json_line(const std::string& out) {
  std::string text = out;
  while (!text.empty() && text.back() == '\n')
    text.pop_back();
  const auto start = text.rfind('\n');
  return nlohmann::json::parse(start == std::string::npos ? text : text.substr(start + 1), nullptr,
                               /*allow_exceptions=*/false);
}

// A POST rule for `fault` on any route, e.g. {"probability": 0.3, "status": 503}.
inline nlohmann::json on_any_post(std::string fault, nlohmann::json params) {
  nlohmann::json r = {{"match", {{"method", "POST"}}}, {"fault", std::move(fault)}};
  r.update(params);
  return r;
}

class cli_journal_test : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.emplace(strings{"--listen", "127.0.0.1:0", "--db", dir_.file("server.db"),
                            "--admin-token", idem::kit::admin_token});
    api_.emplace(server_->port(), token);
  }

  [[nodiscard]] std::string url() const {
    return "http://127.0.0.1:" + std::to_string(server_->port());
  }

  // `command` with the server's URL, the token and the journal (in that order, after it).
  [[nodiscard]] strings with_server(const std::string& command, strings extra = {},
                                    const std::string& with_token = token) const {
    strings args{command, "--url", url(), "--token", with_token, "--journal", journal_};
    args.insert(args.end(), extra.begin(), extra.end());
    return args;
  }
  [[nodiscard]] strings load_args(std::size_t orders, strings extra = {}) const {
    strings args{"--orders", std::to_string(orders), "--pay", "--deadline", "10s"};
    args.insert(args.end(), extra.begin(), extra.end());
    return with_server("load", args);
  }
  [[nodiscard]] strings resume_args(const std::string& with_token = token) const {
    return with_server("resume", {"--deadline", "10s"}, with_token);
  }

  static cli_result run(const strings& args, const cli_options& options = {}) {
    return idem::kit::run_cli_to_exit(args, options);
  }
  static cli_options crash_at(const std::string& point) {
    return {.env = {{"IDEM_CLI_CRASH_AT", point}}};
  }

  // `idem-cli journal --journal J`: {intents, succeeded, rejected, not_sent, unresolved}.
  [[nodiscard]] nlohmann::json journal_counts() const {
    const cli_result r = run({"journal", "--journal", journal_});
    EXPECT_EQ(r.exit_code(), 0) << r.dump();
    return last_json_line(r.out);
  }

  // Runs `resume` until it reports every intent ended (exit 0 or 1), at most `at_most` times;
  // returns how many ran.
  int resume_to_the_end(int at_most = 4) {
    for (int n = 1; n <= at_most; ++n) {
      const cli_result r = run(resume_args());
      EXPECT_TRUE(r.exit_code() == 0 || r.exit_code() == 1 || r.exit_code() == 3) << r.dump();
      if (r.exit_code() == 0 || r.exit_code() == 1) return n;
    }
    ADD_FAILURE() << "the journal still has open intents after " << at_most << " resumes";
    return at_most;
  }

  [[nodiscard]] nlohmann::json stats() { return api_->stats(); }
  [[nodiscard]] std::int64_t stat(const char* name) { return stats().value(name, -1); }

  idem::kit::temp_dir dir_;  // declared first: removed after the server is gone
  std::string journal_ = dir_.file("shop.journal");
  std::optional<idem::kit::server_process> server_;
  std::optional<api_client> api_;
};

}  // namespace idem::test::cli_journal
