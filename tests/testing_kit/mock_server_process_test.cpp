// The test kit's mock_server_process: the real idem-mock-server as a child process, started on
// a free port with a temporary database, stopped, killed and restarted on the same data.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "idem/testing/find_mock_server.hpp"
#include "idem/testing/mock_server_process.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/processes/mock_server_binary.hpp"

namespace {

namespace kit = idem::kit;

kit::mock_server_options options() {
  return {.binary = kit::built_mock_server_binary()};
}

TEST(MockServerProcess, StartsOnAFreeLoopbackPortAndAnswers) {
  auto server = kit::mock_server_process::start(options());
  ASSERT_TRUE(server.ok()) << server;
  EXPECT_NE(server->port(), 0);
  EXPECT_EQ(server->url(), "http://127.0.0.1:" + std::to_string(server->port()));
  EXPECT_TRUE(server->running());
  EXPECT_GT(server->pid(), 0);
  idem::kit::api_client api{server->port(), server->tenant_token()};
  const auto id = api.create_order("cart-1", "k-1");
  EXPECT_TRUE(api.get("/v1/orders/" + id).res.status == 200);
  auto stats = server->admin().stats();
  ASSERT_TRUE(stats.ok()) << stats;
  EXPECT_EQ(stats->orders, 1);
}

TEST(MockServerProcess, TokensOfOneAccountShareTheirKeysAsOptionsOrAtRunTime) {
  // An app's token refreshed in the middle of an intent keeps its key's scope once the server
  // knows the tokens are one account's (contract section 1).
  auto o = options();
  o.principals = {{"acct-token-1", "acct"}, {"acct-token-2", "acct"}};
  auto server = kit::mock_server_process::start(o);
  ASSERT_TRUE(server.ok()) << server;
  idem::kit::api_client before{server->port(), "acct-token-1"};
  idem::kit::api_client after{server->port(), "acct-token-2"};
  before.create_order("cart-1", "k-1");
  EXPECT_EQ(after.post("/v1/orders", "k-1", idem::kit::order_body("cart-1"))
                .res.header("Idempotent-Replayed"),
            "true");
  // At run time: a third token joins the account.
  ASSERT_TRUE(server->admin().set_principals({{"acct-token-3", "acct"}}).ok());
  idem::kit::api_client third{server->port(), "acct-token-3"};
  EXPECT_EQ(third.post("/v1/orders", "k-1", idem::kit::order_body("cart-1"))
                .res.header("Idempotent-Replayed"),
            "true");
  EXPECT_EQ(server->admin().stats()->orders, 1);
}

// Any local user reads a process's command line in /proc: the admin token must not be on it.
TEST(MockServerProcess, TheAdminTokenIsNotOnTheServersCommandLine) {
  auto o = options();
  o.admin_token = "kit-admin-secret-4711";
  auto server = kit::mock_server_process::start(o);
  ASSERT_TRUE(server.ok()) << server;
  std::ifstream in{"/proc/" + std::to_string(server->pid()) + "/cmdline", std::ios::binary};
  std::stringstream cmdline;
  cmdline << in.rdbuf();
  ASSERT_FALSE(cmdline.str().empty());
  EXPECT_EQ(cmdline.str().find("kit-admin-secret-4711"), std::string::npos) << cmdline.str();
  auto stats = server->admin().stats();  // the server knows the token all the same
  EXPECT_TRUE(stats.ok()) << stats;
}

TEST(MockServerProcess, StopEndsItGracefullyAndTwiceIsAnError) {
  auto server = kit::mock_server_process::start(options());
  ASSERT_TRUE(server.ok()) << server;
  const auto stopped = server->stop();
  EXPECT_TRUE(stopped.ok()) << stopped;
  EXPECT_FALSE(server->running());
  EXPECT_EQ(server->pid(), -1);
  EXPECT_EQ(server->stop().error().code, kit::mock_errc::not_running);
  EXPECT_EQ(server->kill().error().code, kit::mock_errc::not_running);
  // The admin API of a stopped server says so instead of hanging.
  EXPECT_EQ(server->admin().stats().error().code, kit::mock_errc::request_failed);
}

TEST(MockServerProcess, KillAndRestartKeepTheDataAndThePort) {
  auto server = kit::mock_server_process::start(options());
  ASSERT_TRUE(server.ok()) << server;
  const auto port = server->port();
  std::string id;
  {
    idem::kit::api_client api{port, server->tenant_token()};
    id = api.create_order("cart-1", "k-1");
  }
  ASSERT_TRUE(server->kill().ok());
  EXPECT_FALSE(server->running());

  const auto restarted = server->restart();
  ASSERT_TRUE(restarted.ok()) << restarted;
  EXPECT_EQ(server->port(), port);
  idem::kit::api_client api{port, server->tenant_token()};
  EXPECT_EQ(api.get("/v1/orders/" + id).res.status, 200);
  // The same key again is a replay of the first answer: the record survived the SIGKILL.
  const auto again = api.post("/v1/orders", "k-1", idem::kit::order_body("cart-1"));
  EXPECT_EQ(again.res.header("Idempotent-Replayed"), "true");
  auto stats = server->admin().stats();
  ASSERT_TRUE(stats.ok()) << stats;
  EXPECT_EQ(stats->orders, 1);
}

TEST(MockServerProcess, TheTemporaryDirectoryGoesWithTheHandle) {
  std::filesystem::path dir;
  {
    auto server = kit::mock_server_process::start(options());
    ASSERT_TRUE(server.ok()) << server;
    dir = std::filesystem::path(server->db_path()).parent_path();
    EXPECT_TRUE(std::filesystem::exists(server->db_path()));
    EXPECT_EQ(std::filesystem::path(server->log_path()).parent_path(), dir);
  }
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir;
}

TEST(MockServerProcess, AMovedHandleKeepsTheServer) {
  auto started = kit::mock_server_process::start(options());
  ASSERT_TRUE(started.ok()) << started;
  kit::mock_server_process server = std::move(started).value();
  EXPECT_TRUE(server.running());
  EXPECT_TRUE(server.admin().stats().ok());
}

TEST(MockServerProcess, AnExplicitPathThatIsNoServerIsNotFound) {
  auto server = kit::mock_server_process::start({.binary = "/nonexistent/idem-mock-server"});
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.error().code, kit::mock_errc::server_not_found);
  EXPECT_NE(server.describe().find("/nonexistent/idem-mock-server"), std::string::npos) << server;
}

TEST(MockServerProcess, ContradictoryOptionsAreRefusedBeforeAnythingRuns) {
  auto o = options();
  o.preset = "lost-responses";
  o.faults = kit::fault_set{};
  auto server = kit::mock_server_process::start(o);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.error().code, kit::mock_errc::invalid_options) << server;

  auto clash = options();
  clash.tenant_tokens = {clash.admin_token};
  EXPECT_EQ(kit::mock_server_process::start(clash).error().code, kit::mock_errc::invalid_options);
}

TEST(MockServerProcess, AServerThatRefusesItsCommandLineIsAStartFailureWithItsReason) {
  auto o = options();
  o.extra_args = {"--lease", "soon"};
  auto server = kit::mock_server_process::start(o);
  ASSERT_FALSE(server.ok());
  EXPECT_EQ(server.error().code, kit::mock_errc::start_failed);
  EXPECT_NE(server.describe().find("exited with status 2"), std::string::npos) << server;
  EXPECT_NE(server.describe().find("--lease: bad duration 'soon'"), std::string::npos) << server;
}

TEST(MockServerProcess, ValueOfAFailedStartThrowsWithTheReason) {
  auto server = kit::mock_server_process::start({.binary = "/nonexistent/idem-mock-server"});
  EXPECT_THROW((void)std::move(server).value(), kit::bad_mock_result_access);
}

TEST(FindMockServer, TheEnvironmentVariableComesAfterAnExplicitPath) {
  const std::string built = kit::built_mock_server_binary();
  ASSERT_EQ(::setenv("IDEM_MOCK_SERVER", built.c_str(), 1), 0);
  auto found = kit::find_mock_server();
  ASSERT_TRUE(found.ok()) << found;
  EXPECT_EQ(*found, built);
  // An explicit path wins, even when the variable is set.
  EXPECT_EQ(kit::find_mock_server("/bin/sh").value(), "/bin/sh");

  ASSERT_EQ(::setenv("IDEM_MOCK_SERVER", "/nonexistent/server", 1), 0);
  auto wrong = kit::find_mock_server();
  ASSERT_FALSE(wrong.ok());
  EXPECT_NE(wrong.describe().find("IDEM_MOCK_SERVER=/nonexistent/server"), std::string::npos);
  ::unsetenv("IDEM_MOCK_SERVER");
}

TEST(FindMockServer, WithoutAnyPlaceItSaysWhereItLooked) {
  ::unsetenv("IDEM_MOCK_SERVER");
  const char* path = std::getenv("PATH");
  const std::string saved = path != nullptr ? path : "";
  ASSERT_EQ(::setenv("PATH", "/nonexistent", 1), 0);
  auto found = kit::find_mock_server();
  ::setenv("PATH", saved.c_str(), 1);
  if (found.ok()) GTEST_SKIP() << "an idem-mock-server is installed at " << *found;
  EXPECT_EQ(found.error().code, kit::mock_errc::server_not_found);
  EXPECT_NE(found.describe().find("IDEM_MOCK_SERVER"), std::string::npos) << found;
  EXPECT_NE(found.describe().find("PATH"), std::string::npos) << found;
}

}  // namespace
