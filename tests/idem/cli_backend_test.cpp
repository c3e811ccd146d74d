// idem-cli against backends other than a healthy mock server (contract section 9's common
// options): what reaches the server (--header, --path, --profile, --lookup*, --attempt-timeout,
// --cacert), what is said when an intent does not succeed (stderr and the JSON's "error"),
// URLs that can never work (exit 2 at once), and Ctrl-C's list of unresolved keys. The
// backends are the mock server, a recording HTTP listener and the TLS peer of the curl tests,
// each on loopback in a thread of its own while idem-cli runs (in process through run_cli, or
// as a real process where the exit status or a signal is the point).
#include <gtest/gtest.h>
#include <signal.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "idem_cli/exit_status.hpp"
#include "idem_cli/run_cli.hpp"
#include "tests/idem/support/tls_test_pki.hpp"
#include "tests/support/cli_process.hpp"
#include "tests/support/running_server.hpp"
#include "tests/support/temp_dir.hpp"

namespace idem::cli {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace std::chrono_literals;
using strings = std::vector<std::string>;

// An io_context run by a thread of its own, from construction to destruction.
class background_io {
 public:
  background_io() : thread_([this] { io_.run(); }) {}
  ~background_io() {
    guard_.reset();
    io_.stop();
    thread_.join();
  }
  background_io(const background_io&) = delete;
  background_io& operator=(const background_io&) = delete;
  asio::io_context& io() noexcept { return io_; }

 private:
  asio::io_context io_;
  asio::executor_work_guard<asio::io_context::executor_type> guard_ = asio::make_work_guard(io_);
  std::thread thread_;
};

// What a request to the listener gets: a complete raw HTTP response, or nothing at all (the
// connection is held open until the client gives up).
using answer_policy = std::function<std::optional<std::string>(const std::string& head)>;

std::string http_answer(int status, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\n" +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

// An HTTP/1.1 listener on 127.0.0.1:0 that records every request head and answers as its
// policy says. Thread-safe: the test thread reads what it saw while it runs.
class recording_listener {
 public:
  explicit recording_listener(answer_policy policy)
      : state_(std::make_shared<state>()),
        acceptor_(std::make_shared<tcp::acceptor>(
            bg_.io(), tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0})) {
    port_ = acceptor_->local_endpoint().port();
    asio::co_spawn(bg_.io(), accept_loop(acceptor_, state_, std::move(policy)), asio::detached);
  }

  [[nodiscard]] std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  [[nodiscard]] strings heads() const {
    std::lock_guard lock(state_->mutex);
    return state_->heads;
  }
  // Heads whose request line starts with `prefix` (e.g. "POST ", "GET /lookup").
  [[nodiscard]] strings heads_starting(const std::string& prefix) const {
    strings out;
    for (auto& h : heads())
      if (h.starts_with(prefix)) out.push_back(h);
    return out;
  }
  // Waits until `n` requests arrived; false if `limit` passed first (a hang, not a timing).
  bool wait_for_requests(std::size_t n, std::chrono::milliseconds limit = 30s) const {
    std::unique_lock lock(state_->mutex);
    return state_->arrived.wait_for(lock, limit, [&] { return state_->heads.size() >= n; });
  }

 private:
  struct state {
    mutable std::mutex mutex;
    std::condition_variable arrived;
    strings heads;
  };

  static asio::awaitable<void> accept_loop(std::shared_ptr<tcp::acceptor> acceptor,
                                           std::shared_ptr<state> st, answer_policy policy) {
    for (;;) {
      auto socket = std::make_shared<tcp::socket>(co_await asio::this_coro::executor);
      boost::system::error_code ec;
      co_await acceptor->async_accept(*socket, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      asio::co_spawn(co_await asio::this_coro::executor, serve(socket, st, policy), asio::detached);
    }
  }

  static asio::awaitable<void> serve(std::shared_ptr<tcp::socket> socket, std::shared_ptr<state> st,
                                     answer_policy policy) {
    try {
      std::string buffer;
      for (;;) {
        const auto end = co_await asio::async_read_until(*socket, asio::dynamic_buffer(buffer),
                                                         "\r\n\r\n", asio::use_awaitable);
        const std::string head = buffer.substr(0, end);
        buffer.erase(0, end);
        std::size_t length = 0;
        if (auto at = head.find("Content-Length: "); at != std::string::npos) {
          length = std::stoul(head.substr(at + 16));
        }
        if (buffer.size() < length) {
          co_await asio::async_read(*socket, asio::dynamic_buffer(buffer),
                                    asio::transfer_exactly(length - buffer.size()),
                                    asio::use_awaitable);
        }
        buffer.erase(0, length);
        {
          std::lock_guard lock(st->mutex);
          st->heads.push_back(head);
        }
        st->arrived.notify_all();
        const auto answer = policy(head);
        if (!answer) {
          // Held: read until the client gives up on it.
          char byte = 0;
          for (;;)
            co_await socket->async_read_some(asio::buffer(&byte, 1), asio::use_awaitable);
        }
        co_await asio::async_write(*socket, asio::buffer(*answer), asio::use_awaitable);
      }
    } catch (const boost::system::system_error&) {
      // the client closed the connection
    }
  }

  std::shared_ptr<state> state_;
  background_io bg_;  // after state_: stopped (and its coroutines gone) before state_ goes
  std::shared_ptr<tcp::acceptor> acceptor_;
  std::uint16_t port_ = 0;
};

std::optional<std::string> created(const std::string& head) {
  if (head.starts_with("POST ")) return http_answer(201, R"({"id":"ord_1","status":"CREATED"})");
  return http_answer(404, R"({"type":"about:blank","title":"Not Found"})");
}

// POSTs are held (their answers lost), lookups find nothing.
std::optional<std::string> writes_lost(const std::string& head) {
  if (head.starts_with("POST ")) return std::nullopt;
  return http_answer(404, R"({"type":"about:blank","title":"Not Found"})");
}

const char* order_json =
    R"({"merchant_order_id":"cli-1","customer_id":"c1","currency":"EUR","amount_minor":1500,)"
    R"("items":[{"sku":"book","quantity":3,"unit_price_minor":500}]})";

struct cli_run {
  int status;
  std::string out;
  std::string err;
  [[nodiscard]] nlohmann::json json() const {
    return nlohmann::json::parse(out, nullptr, /*allow_exceptions=*/false);
  }
};

cli_run run(const strings& args) {
  std::ostringstream out;
  std::ostringstream err;
  const int status = run_cli(args, out, err, /*show_progress=*/false);
  return {status, out.str(), err.str()};
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

std::uint16_t dead_port() {
  asio::io_context io;
  tcp::acceptor a(io, {asio::ip::make_address("127.0.0.1"), 0});
  return a.local_endpoint().port();
}

// --- saying why ----------------------------------------------------------------------------------

TEST(CliBackend, SubmitToARefusedPortSaysWhyOnStderrAndInTheJson) {
  const std::string url = "http://127.0.0.1:" + std::to_string(dead_port());
  const auto r = run(submit_to(url, {"--deadline", "1s"}));
  EXPECT_EQ(r.status, exit_some_open);
  const std::string why = "connection refused (" + url + "/v1/orders)";
  EXPECT_EQ(r.json()["outcome"], "not_sent");
  EXPECT_EQ(r.json()["error"], why);
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
  EXPECT_EQ(r.json()["error"], why);
  EXPECT_EQ(r.err, "idem-cli: rejected: " + why + "\n");
}

TEST(CliBackend, MalformedOrUnsupportedUrlsExitTwoAtOnceSayingWhy) {
  for (const std::string url : {"ftp://127.0.0.1:21", "http//127.0.0.1:8080"}) {
    const auto r = testing::run_cli_to_exit(submit_to(url));
    EXPECT_EQ(r.exit_code(), exit_usage) << r.dump();
    EXPECT_EQ(r.out, "") << r.dump();
    EXPECT_TRUE(r.err.starts_with("idem-cli: bad --url '" + url + "': ")) << r.dump();
  }
  const auto ftp = testing::run_cli_to_exit(
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
  testing::running_server server;
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
  EXPECT_EQ(header_of(posts[0], "Idempotency-Key"), r.json()["key"]) << posts[0];
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
  background_io bg;
  test::tls::tls_peer peer(bg.io(), pki);
  const std::string url = "https://127.0.0.1:" + std::to_string(peer.port());

  const auto trusted = run(submit_to(url, {"--cacert", pki.ca_file}));
  EXPECT_EQ(trusted.status, exit_all_succeeded) << trusted.out << trusted.err;
  EXPECT_EQ(trusted.json()["status"], 200);

  const auto untrusted = run(submit_to(url, {"--deadline", "1s"}));
  EXPECT_EQ(untrusted.status, exit_some_open);
  EXPECT_EQ(untrusted.json()["outcome"], "not_sent");
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
  testing::cli_process cli({"load", "--url", server.url(), "--token", "t", "--orders", "2",
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
  testing::temp_dir dir;
  const std::string journal = dir.file("shop.journal");
  testing::cli_process cli(submit_to(server.url(), {"--deadline", "60s", "--journal", journal}));
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
