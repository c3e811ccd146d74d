// The mock server's HTTP front end over real sockets: keep-alive, limits, malformed input,
// timeouts, fault deliveries (reset, stall), handler failures and graceful shutdown. The server
// runs on an io_context in a background thread; the tests talk to it with blocking clients.

#include "mock_server/http/http_server.hpp"

#include <gtest/gtest.h>
#include <poll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <future>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "tests/mock_server/support/response_header.hpp"
#include "tests/support/http/http_client.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/raw_http_connection.hpp"
#include "tests/support/servers/in_process_http_server.hpp"
#include "tests/support/servers/running_server.hpp"

// GCC defines __SANITIZE_ADDRESS__ under -fsanitize=address; clang says it through __has_feature.
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define IDEM_CLANG_ASAN 1
#endif
#endif
#ifndef IDEM_CLANG_ASAN
#define IDEM_CLANG_ASAN 0
#endif
namespace idem::mock {
namespace {

using test::header_of;

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using idem::kit::http_client;
using idem::kit::http_result;
using raw_connection = idem::kit::raw_http_connection;
using namespace std::chrono_literals;

// Only turns a hang into a failure; nothing is expected to take nearly this long.
constexpr auto hang_bound = idem::kit::in_process_http_server::hang_bound;

http_server_options test_options() {
  return {.read_timeout = 5s, .write_timeout = 5s, .idle_timeout = 10s, .shutdown_grace = 1s};
}

// Lets the test thread wait for something that happens on the server's thread.
class event_count {
 public:
  void notify() {
    {
      std::lock_guard lock(mutex_);
      ++count_;
    }
    cv_.notify_all();
  }
  [[nodiscard]] bool wait_for_at_least(int n) {
    std::unique_lock lock(mutex_);
    return cv_.wait_for(lock, hang_bound, [&] { return count_ >= n; });
  }

 private:
  std::mutex mutex_;
  std::condition_variable cv_;
  int count_ = 0;
};

std::string chunked(std::string_view head, std::size_t chunks, std::size_t chunk_size) {
  std::string out(head);
  std::array<char, 32> size_line{};
  std::snprintf(size_line.data(), size_line.size(), "%zx\r\n", chunk_size);
  for (std::size_t i = 0; i < chunks; ++i) {
    out += size_line.data();
    out.append(chunk_size, 'c');
    out += "\r\n";
  }
  out += "0\r\n\r\n";
  return out;
}

class HttpServerTest : public ::testing::Test {
 protected:
  void start(http_server_options options = test_options()) {
    server_.start(
        [this](request req) -> asio::awaitable<reply> {
          // A handler that fails before it even returns its coroutine.
          if (req.path() == "/throw-now") throw std::runtime_error("synchronous handler failure");
          return handle(std::move(req));
        },
        options);
  }

  void TearDown() override {
    if (server_.has_server()) {
      // Every test must leave a server that can still stop gracefully.
      auto stopped = server_.shutdown();
      EXPECT_EQ(stopped.wait_for(hang_bound), std::future_status::ready)
          << "on_stopped was not called";
    }
    server_.stop();
  }

  [[nodiscard]] std::uint16_t port() const { return server_.port(); }

  template <typename F>
  auto on_io(F f) -> decltype(f()) {
    return server_.on_io(std::move(f));
  }

  std::future<void> shutdown_server() { return server_.shutdown(); }

  std::size_t open_connections() { return server_.open_connections(); }

  // Lets every request held at /gate finish.
  void open_gate() {
    on_io([&] { gate_.cancel(); });
  }

  static response echo(const request& req) {
    const nlohmann::json body = {{"method", req.method},
                                 {"target", req.target},
                                 {"body_size", req.body.size()},
                                 {"body_too_large", req.body_too_large},
                                 {"x_test", std::string(req.header("X-Test").value_or(""))}};
    response res;
    // Like the core: an oversized body is answered 413.
    res.status = req.body_too_large ? 413 : 200;
    res.set_header("Content-Type", "application/json");
    res.body = body.dump();
    return res;
  }

  asio::awaitable<reply> handle(request req) {
    const std::string path(req.path());
    const std::chrono::milliseconds ms{std::stoi(query_param(req.query(), "ms").value_or("0"))};
    if (path == "/throw") throw std::runtime_error("handler failure");
    if (path == "/reset") co_return reply{.res = {}, .how = delivery::reset};
    if (path == "/stall")
      co_return reply{.res = echo(req), .how = delivery::stall, .stall_for = ms};
    if (path == "/close") co_return reply{.res = echo(req), .close = true};
    if (path == "/delay") {
      asio::steady_timer timer(co_await asio::this_coro::executor, ms);
      co_await timer.async_wait(asio::use_awaitable);
    }
    if (path == "/gate") {
      gate_entered_.notify();
      // Ends when the test opens the gate, or when a forced close cancels the handler.
      co_await gate_.async_wait(asio::as_tuple(asio::use_awaitable));
    }
    co_return reply{.res = echo(req)};
  }

  idem::kit::in_process_http_server server_;
  asio::steady_timer gate_{server_.io(), asio::steady_timer::time_point::max()};
  event_count gate_entered_;
};

TEST_F(HttpServerTest, KeepAliveReusesOneConnectionForSeveralRequests) {
  start();
  http_client client(port());
  for (int i = 0; i < 5; ++i) {
    auto r = client.send("POST", "/echo", {{"X-Test", std::to_string(i)}}, R"({"n":1})");
    ASSERT_TRUE(r.ok()) << r.ec.message();
    EXPECT_EQ(r.res.status, 200);
    EXPECT_EQ(r.res.json()["x_test"], std::to_string(i));
    EXPECT_EQ(r.res.json()["body_size"], 7);
    EXPECT_TRUE(r.res.header("Date").has_value());
    EXPECT_EQ(r.res.header("Content-Length"), std::to_string(r.res.body.size()));
    EXPECT_NE(r.res.header("Connection"), "close");
  }
  EXPECT_EQ(client.connections_opened(), 1);
  EXPECT_TRUE(client.connected());
  EXPECT_EQ(open_connections(), 1U);
}

TEST_F(HttpServerTest, PipelinedRequestsAreAnsweredInOrderOnOneConnection) {
  start();
  raw_connection conn(port());
  ASSERT_FALSE(
      conn.write("GET /echo HTTP/1.1\r\nHost: t\r\nX-Test: first\r\n\r\n"
                 "GET /echo HTTP/1.1\r\nHost: t\r\nX-Test: second\r\n\r\n"));
  for (const char* expected : {"first", "second"}) {
    auto [ec, res] = conn.read_response();
    ASSERT_FALSE(ec) << ec.message();
    EXPECT_EQ(nlohmann::json::parse(res.body())["x_test"], expected);
  }
}

TEST_F(HttpServerTest, ClientConnectionCloseIsAnsweredThenTheServerCloses) {
  start();
  raw_connection conn(port());
  ASSERT_FALSE(conn.write("GET /echo HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  auto [ec, res] = conn.read_response();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 200U);
  EXPECT_EQ(header_of(res, http::field::connection), "close");
  EXPECT_EQ(conn.wait_for_close(), asio::error::eof);

  http_client client(port());
  auto r = client.send("GET", "/echo", {{"Connection", "close"}});
  ASSERT_TRUE(r.ok()) << r.ec.message();
  EXPECT_FALSE(client.connected());
}

TEST_F(HttpServerTest, Http10RequestWithoutKeepAliveIsAnsweredThenClosed) {
  start();
  raw_connection conn(port());
  ASSERT_FALSE(conn.write("GET /echo HTTP/1.0\r\n\r\n"));
  auto [ec, res] = conn.read_response();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 200U);
  EXPECT_EQ(res.version(), 10U);
  EXPECT_EQ(header_of(res, http::field::connection), "close");
  EXPECT_EQ(conn.wait_for_close(), asio::error::eof);
}

TEST_F(HttpServerTest, ReplyCloseFlagClosesTheConnectionAfterTheResponse) {
  start();
  raw_connection conn(port());
  ASSERT_FALSE(conn.write("GET /close HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto [ec, res] = conn.read_response();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 200U);
  EXPECT_EQ(header_of(res, http::field::connection), "close");
  EXPECT_EQ(conn.wait_for_close(), asio::error::eof);
}

TEST_F(HttpServerTest, MalformedRequestsGet400ProblemAndTheServerServesTheNextClient) {
  start();
  const std::vector<std::string> garbage = {
      std::string("\x16\x03\x01\x02\x00garbage\x01\x02\r\n\r\n", 18),
      "GET / HTTP/9.9\r\n\r\n",
      "GET /echo HTTP/1.1\r\nHost: t\r\nBad Header Name: x\r\n\r\n",
      "POST /echo HTTP/1.1\r\nHost: t\r\nContent-Length: abc\r\n\r\n",
      "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n\r\n",
  };
  for (const auto& bytes : garbage) {
    http_client client(port());
    auto r = client.send_raw(bytes);
    ASSERT_TRUE(r.ok()) << r.ec.message() << " for " << bytes;
    EXPECT_EQ(r.res.status, 400) << bytes;
    EXPECT_EQ(r.res.header("Content-Type"), "application/problem+json");
    EXPECT_EQ(idem::kit::problem_name(r.res), "validation-failed");
    EXPECT_EQ(r.res.header("Connection"), "close");

    http_client next(port());
    auto ok = next.send("GET", "/echo");
    ASSERT_TRUE(ok.ok()) << ok.ec.message();
    EXPECT_EQ(ok.res.status, 200);
  }
}

TEST_F(HttpServerTest, BodyWithinTheLimitIsDeliveredWhole) {
  start();
  http_client client(port());
  auto r = client.send("POST", "/echo", {}, std::string(64 * 1024, 'b'));
  ASSERT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 200);
  EXPECT_EQ(r.res.json()["body_size"], 64 * 1024);
  EXPECT_EQ(r.res.json()["body_too_large"], false);

  auto c = client.send_raw(chunked(
      "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n", 4, 16 * 1024));
  ASSERT_TRUE(c.ok()) << c.ec.message();
  EXPECT_EQ(c.res.status, 200);
  EXPECT_EQ(c.res.json()["body_size"], 64 * 1024);
}

TEST_F(HttpServerTest, OversizedBodyWithContentLengthReachesTheHandlerAsTooLargeThenCloses) {
  start();
  http_client client(port());
  auto r = client.send("POST", "/echo", {}, std::string(1024 * 1024, 'x'));
  ASSERT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 413);
  EXPECT_EQ(r.res.json()["body_too_large"], true);
  EXPECT_EQ(r.res.json()["body_size"], 0);
  EXPECT_EQ(r.res.header("Connection"), "close");
  EXPECT_FALSE(client.connected());

  auto next = client.send("GET", "/echo");
  ASSERT_TRUE(next.ok()) << next.ec.message();
  EXPECT_EQ(next.res.status, 200);
  EXPECT_EQ(client.connections_opened(), 2);
}

TEST_F(HttpServerTest, ChunkExtensionsAndTrailerAreReadButTrailerFieldsAreNotHeaders) {
  start();
  // RFC 9110 section 6.5.1: a trailer field must not be merged into the header section.
  auto r = http_client(port()).send_raw(
      "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
      "2;name=value;quoted=\"a b\"\r\n{}\r\n0;last\r\nX-Test: from-trailer\r\n\r\n");
  ASSERT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 200);
  EXPECT_EQ(r.res.json()["body_size"], 2);
  EXPECT_EQ(r.res.json()["x_test"], "");
}

TEST_F(HttpServerTest, OversizedChunkedBodyReachesTheHandlerAsTooLargeThenCloses) {
  start();
  http_client client(port());
  auto r = client.send_raw(chunked(
      "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n", 64, 16 * 1024));
  ASSERT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 413);
  EXPECT_EQ(r.res.json()["body_too_large"], true);
  EXPECT_EQ(r.res.json()["body_size"], 0);
  EXPECT_EQ(r.res.header("Connection"), "close");

  auto next = client.send("GET", "/echo");
  ASSERT_TRUE(next.ok()) << next.ec.message();
  EXPECT_EQ(next.res.status, 200);
}

TEST_F(HttpServerTest, ExpectContinueGetsAnInterimResponseBeforeTheBody) {
  start();
  raw_connection conn(port());
  ASSERT_FALSE(
      conn.write("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n"
                 "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n"));
  auto [ec, interim] = conn.read_response();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(interim.result(), http::status::continue_);
  ASSERT_FALSE(conn.write("{}"));
  auto [ec2, res] = conn.read_response();
  ASSERT_FALSE(ec2) << ec2.message();
  EXPECT_EQ(res.result_int(), 200U);
  EXPECT_EQ(nlohmann::json::parse(res.body())["body_size"], 2);
}

TEST_F(HttpServerTest, OversizedBodyWithExpectContinueIsRefusedWithoutAskingForTheBody) {
  start();
  raw_connection conn(port());
  ASSERT_FALSE(
      conn.write("POST /echo HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\n"
                 "Content-Length: 1048576\r\n\r\n"));
  auto [ec, res] = conn.read_response();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 413U);
  EXPECT_EQ(conn.wait_for_close(), asio::error::eof);
}

TEST_F(HttpServerTest, OversizedHeaderBlockGets431Problem) {
  start();
  http_client client(port());
  auto r = client.send("GET", "/echo", {{"X-Big", std::string(32 * 1024, 'h')}});
  ASSERT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 431);
  EXPECT_EQ(r.res.header("Content-Type"), "application/problem+json");
  EXPECT_EQ(r.res.json()["status"], 431);

  auto next = client.send("GET", "/echo");
  ASSERT_TRUE(next.ok()) << next.ec.message();
  EXPECT_EQ(next.res.status, 200);
}

TEST_F(HttpServerTest, ResetDeliveryIsSeenAsConnectionResetWithoutAResponse) {
  start();
  http_client client(port());
  auto r = client.send("POST", "/reset", {}, "{}");
  EXPECT_EQ(r.ec, std::errc::connection_reset) << r.ec.message();
  EXPECT_EQ(r.res.status, 0);

  auto next = client.send("GET", "/echo");
  ASSERT_TRUE(next.ok()) << next.ec.message();
  EXPECT_EQ(next.res.status, 200);
}

TEST_F(HttpServerTest, StallDeliveryMakesAShorterClientTimeoutFire) {
  start();
  http_client client(port());
  auto r = client.send("GET", "/stall?ms=3000", {}, {}, 100ms);
  EXPECT_EQ(r.ec, std::errc::timed_out) << r.ec.message();
}

TEST_F(HttpServerTest, StallDeliveryWritesTheResponseAfterTheStall) {
  start();
  http_client client(port());
  auto r = client.send("GET", "/stall?ms=20");
  ASSERT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 200);
}

TEST_F(HttpServerTest, ThrowingHandlerGets500InternalAndTheServerStaysAlive) {
  start();
  http_client client(port());
  for (const char* target : {"/throw", "/throw-now"}) {
    auto r = client.send("POST", target, {}, "{}");
    ASSERT_TRUE(r.ok()) << r.ec.message();
    EXPECT_EQ(r.res.status, 500);
    EXPECT_EQ(r.res.header("Content-Type"), "application/problem+json");
    EXPECT_EQ(idem::kit::problem_name(r.res), "internal");
  }
  auto next = client.send("GET", "/echo");
  ASSERT_TRUE(next.ok()) << next.ec.message();
  EXPECT_EQ(next.res.status, 200);
  EXPECT_EQ(client.connections_opened(), 1);
}

TEST_F(HttpServerTest, IdleKeepAliveConnectionIsClosedByIdleTimeout) {
  auto options = test_options();
  options.idle_timeout = 200ms;
  start(options);
  raw_connection used(port());
  ASSERT_FALSE(used.write("GET /echo HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto [ec, res] = used.read_response();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_NE(header_of(res, http::field::connection), "close");
  EXPECT_EQ(used.wait_for_close(), asio::error::eof);

  raw_connection silent(port());
  EXPECT_EQ(silent.wait_for_close(), asio::error::eof);
}

TEST_F(HttpServerTest, IncompleteRequestIsClosedByReadTimeout) {
  auto options = test_options();
  options.read_timeout = 200ms;
  start(options);
  raw_connection conn(port());
  ASSERT_FALSE(conn.write("GET /echo HTTP/1.1\r\nHost: t\r\n"));  // never finished
  EXPECT_EQ(conn.wait_for_close(), asio::error::eof);
}

TEST_F(HttpServerTest, SuspendedHandlerDoesNotBlockOtherConnections) {
  start();
  auto held =
      std::async(std::launch::async, [&] { return http_client(port()).send("GET", "/gate"); });
  ASSERT_TRUE(gate_entered_.wait_for_at_least(1));

  http_client other(port());
  auto r = other.send("GET", "/echo");
  ASSERT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 200);

  open_gate();
  ASSERT_EQ(held.wait_for(hang_bound), std::future_status::ready);
  auto h = held.get();
  ASSERT_TRUE(h.ok()) << h.ec.message();
  EXPECT_EQ(h.res.status, 200);
}

TEST_F(HttpServerTest, GracefulShutdownFinishesTheInFlightRequestThenCallsOnStopped) {
  auto options = test_options();
  options.shutdown_grace = 60s;  // longer than any wait below: nothing here is forced
  start(options);

  raw_connection idle(port());
  ASSERT_FALSE(idle.write("GET /echo HTTP/1.1\r\nHost: t\r\n\r\n"));
  ASSERT_FALSE(idle.read_response().first);

  auto in_flight =
      std::async(std::launch::async, [&] { return http_client(port()).send("GET", "/gate"); });
  ASSERT_TRUE(gate_entered_.wait_for_at_least(1));

  auto stopped = shutdown_server();
  EXPECT_EQ(idle.wait_for_close(), asio::error::eof) << "an idle connection is closed at once";

  http_client late(port());
  auto refused = late.send("GET", "/echo");
  EXPECT_EQ(refused.ec, std::errc::connection_refused) << refused.ec.message();

  // The request is still held at the gate, so the server cannot have stopped yet.
  EXPECT_EQ(stopped.wait_for(0s), std::future_status::timeout);
  open_gate();
  ASSERT_EQ(in_flight.wait_for(hang_bound), std::future_status::ready);
  auto r = in_flight.get();
  ASSERT_TRUE(r.ok()) << r.ec.message();
  EXPECT_EQ(r.res.status, 200);
  EXPECT_EQ(r.res.header("Connection"), "close");

  ASSERT_EQ(stopped.wait_for(hang_bound), std::future_status::ready);
  EXPECT_EQ(open_connections(), 0U);
  // TearDown calls shutdown() a second time: that callback must be called too.
}

TEST_F(HttpServerTest, ShutdownWithoutConnectionsCallsOnStoppedAndRepeatingItIsHarmless) {
  start();
  auto first = shutdown_server();
  ASSERT_EQ(first.wait_for(hang_bound), std::future_status::ready);
  auto second = shutdown_server();
  ASSERT_EQ(second.wait_for(hang_bound), std::future_status::ready);
}

TEST_F(HttpServerTest, ShutdownForceClosesRequestsThatOutliveTheGrace) {
  auto options = test_options();
  options.shutdown_grace = 100ms;
  start(options);
  auto held =
      std::async(std::launch::async, [&] { return http_client(port()).send("GET", "/gate"); });
  ASSERT_TRUE(gate_entered_.wait_for_at_least(1));

  // The gate is never opened: only the forced close (which cancels the handler) ends it.
  auto stopped = shutdown_server();
  ASSERT_EQ(stopped.wait_for(hang_bound), std::future_status::ready);
  ASSERT_EQ(held.wait_for(hang_bound), std::future_status::ready);
  auto r = held.get();
  EXPECT_EQ(r.ec, std::errc::connection_aborted) << r.ec.message();
  EXPECT_EQ(open_connections(), 0U);
}

TEST_F(HttpServerTest, DestroyingTheServerClosesEveryConnection) {
  start();
  raw_connection idle(port());
  ASSERT_FALSE(idle.write("GET /echo HTTP/1.1\r\nHost: t\r\n\r\n"));
  ASSERT_FALSE(idle.read_response().first);
  raw_connection busy(port());
  ASSERT_FALSE(busy.write("GET /gate HTTP/1.1\r\nHost: t\r\n\r\n"));
  ASSERT_TRUE(gate_entered_.wait_for_at_least(1));

  server_.destroy_server();
  EXPECT_EQ(idle.wait_for_close(), asio::error::eof);
  EXPECT_EQ(busy.wait_for_close(), asio::error::eof);
}

TEST_F(HttpServerTest, AcceptLoopKeepsServingAfterManyConnections) {
  start();
  constexpr int concurrent = 32;
  std::vector<std::unique_ptr<http_client>> open;
  for (int i = 0; i < concurrent; ++i) {
    open.push_back(std::make_unique<http_client>(port()));
    auto r = open.back()->send("GET", "/echo");
    ASSERT_TRUE(r.ok()) << r.ec.message();
  }
  EXPECT_EQ(open_connections(), static_cast<std::size_t>(concurrent));
  open.clear();

  for (int i = 0; i < 200; ++i) {
    http_client client(port());
    auto r = client.send("GET", "/echo", {{"Connection", "close"}});
    ASSERT_TRUE(r.ok()) << "connection " << i << ": " << r.ec.message();
    ASSERT_EQ(r.res.status, 200);
  }
}

// Waits until `needle` shows up on the file descriptor (the server's stderr, redirected).
bool wait_for_output(int fd, std::string_view needle) {
  std::string seen;
  const auto deadline = std::chrono::steady_clock::now() + hang_bound;
  while (seen.find(needle) == std::string::npos) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
        deadline - std::chrono::steady_clock::now());
    if (left <= 0ms) return false;
    pollfd p{.fd = fd, .events = POLLIN, .revents = 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    std::array<char, 512> buf{};
    const auto n = ::read(fd, buf.data(), buf.size());
    if (n <= 0) return false;
    seen.append(buf.data(), static_cast<std::size_t>(n));
  }
  return true;
}

TEST_F(HttpServerTest, AConnectionArrivingWithNoDescriptorLeftIsAnswered503) {
#if defined(__SANITIZE_ADDRESS__) || IDEM_CLANG_ASAN
  // Under ASan+UBSan this test exits 1 with its report unreadable: stderr is redirected into the
  // pipe below and no descriptor is left for a sanitizer log file. The other builds run it.
  GTEST_SKIP() << "descriptor exhaustion starves the sanitizer runtime";
#endif
  start();
  // A connection the server already serves, kept open through the shortage.
  http_client kept(port());
  ASSERT_EQ(kept.send("GET", "/echo").res.status, 200);
  // The server reports accept failures on stderr: capture it to wait for the EMFILE report.
  std::array<int, 2> pipe_fds{};
  ASSERT_EQ(::pipe(pipe_fds.data()), 0);
  const int saved_stderr = ::dup(STDERR_FILENO);
  ASSERT_GE(saved_stderr, 0);
  ::dup2(pipe_fds[1], STDERR_FILENO);

  asio::io_context io;
  tcp::socket socket(io);
  socket.open(tcp::v4());  // the client's descriptor exists before the limit is lowered

  rlimit original{};
  ::getrlimit(RLIMIT_NOFILE, &original);
  const int lowest_free = ::dup(pipe_fds[0]);
  ::close(lowest_free);
  rlimit tight = original;
  tight.rlim_cur = static_cast<rlim_t>(lowest_free);  // no new descriptor can be created
  ::setrlimit(RLIMIT_NOFILE, &tight);

  // connect() needs no new descriptor here, the kernel completes it through the listen backlog;
  // the server's accept() fails for want of one.
  boost::system::error_code connect_ec;
  socket.connect(tcp::endpoint(asio::ip::address_v4::loopback(), port()), connect_ec);
  if (!connect_ec) {
    asio::write(socket, asio::buffer(std::string_view("GET /echo HTTP/1.1\r\nHost: t\r\n\r\n")),
                connect_ec);
  }
  const bool reported = wait_for_output(pipe_fds[0], "Too many open files");
  // Still out of descriptors: the server goes on serving the connections it has. Its next
  // accept() fails too, with nobody waiting (Linux takes the descriptor before it looks at the
  // backlog); before, the server then waited in a blocking accept() on its only thread, so this
  // request was not answered, and the next client to come was refused whatever the limit by
  // then (the flaky 503 below, 2 runs in 60).
  http_result during;
  for (int i = 0; i < 5 && (i == 0 || during.ok()); ++i)
    during = kept.send("GET", "/echo", {}, {}, std::chrono::seconds(3));

  ::setrlimit(RLIMIT_NOFILE, &original);
  ::dup2(saved_stderr, STDERR_FILENO);
  ::close(saved_stderr);
  ::close(pipe_fds[0]);
  ::close(pipe_fds[1]);
  ASSERT_FALSE(connect_ec) << connect_ec.message();
  ASSERT_TRUE(reported) << "the server never reported EMFILE";
  ASSERT_TRUE(during.ok()) << "a connection already open went unserved: " << during.ec.message();
  EXPECT_EQ(during.res.status, 200);

  // The waiting connection was accepted on the server's spare descriptor and told 503 with
  // Retry-After (nothing was processed), rather than left hanging in the backlog.
  beast::tcp_stream stream(std::move(socket));
  stream.expires_after(hang_bound);
  beast::flat_buffer buffer;
  http::response<http::string_body> res;
  boost::system::error_code ec;
  http::async_read(stream, buffer, res,
                   [&](const boost::system::error_code& e, std::size_t) { ec = e; });
  io.run();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 503U);
  EXPECT_EQ(header_of(res, http::field::retry_after), "1");

  // With descriptors available again, a new connection is served.
  http_client client(port());
  auto served = client.send("GET", "/echo");
  ASSERT_TRUE(served.ok()) << served.ec.message();
  EXPECT_EQ(served.res.status, 200);
}

// HEAD (RFC 9110 section 9.3.2) through the whole server: every GET route answers it with the GET
// answer's header, Content-Length included, and no content.
class HeadRequestTest : public ::testing::Test {
 protected:
  // GET, HEAD and GET again of `target` on one connection: were the HEAD answer followed by
  // content, the last response would not parse as the GET answer. `stable`: the GET answer does
  // not change from one request to the next (/metrics counts the responses it follows).
  void expect_head_mirrors_get(const std::string& target, const std::string& auth,
                               bool stable = true) {
    SCOPED_TRACE(target);
    const std::string request_tail =
        " " + target + " HTTP/1.1\r\nHost: t\r\nAuthorization: " + auth + "\r\n\r\n";
    raw_connection conn(server_.port());
    ASSERT_FALSE(conn.write("GET" + request_tail + "HEAD" + request_tail + "GET" + request_tail));
    auto [get_ec, get] = conn.read_response();
    ASSERT_FALSE(get_ec) << get_ec.message();
    auto [head_ec, head] = conn.read_response(/*answers_head=*/true);
    ASSERT_FALSE(head_ec) << head_ec.message();
    auto [again_ec, again] = conn.read_response();
    ASSERT_FALSE(again_ec) << again_ec.message();

    EXPECT_EQ(head.result_int(), get.result_int());
    EXPECT_EQ(header_of(head, http::field::content_type),
              header_of(get, http::field::content_type));
    EXPECT_TRUE(head.body().empty());
    EXPECT_EQ(again.result_int(), get.result_int());
    if (stable) {
      EXPECT_EQ(header_of(head, http::field::content_length), std::to_string(get.body().size()));
      EXPECT_EQ(again.body(), get.body());
    } else {
      EXPECT_NE(header_of(head, http::field::content_length), "");
    }
  }

  // The 405 answer to `method` on `target`, with its Allow header.
  std::pair<unsigned, std::string> not_allowed(const std::string& method,
                                               const std::string& target) {
    raw_connection conn(server_.port());
    EXPECT_FALSE(conn.write(method + " " + target + " HTTP/1.1\r\nHost: t\r\n\r\n"));
    auto [ec, res] = conn.read_response(method == "HEAD");
    EXPECT_FALSE(ec) << ec.message();
    EXPECT_TRUE(res.body().empty() || method != "HEAD");
    return {res.result_int(), header_of(res, http::field::allow)};
  }

  idem::kit::running_server server_;
};

TEST_F(HeadRequestTest, HeadHealthzIs200WithTheGetContentLengthAndNoBody) {
  expect_head_mirrors_get("/healthz", "");
}

TEST_F(HeadRequestTest, EveryGetRouteAnswersHeadLikeGet) {
  const std::string tenant = "Bearer tenant-a";
  const std::string admin = std::string("Bearer ") + idem::kit::admin_token;
  expect_head_mirrors_get("/metrics", "", /*stable=*/false);
  expect_head_mirrors_get("/v1/orders?merchant_order_id=m-1", tenant);
  expect_head_mirrors_get("/v1/orders/ord_missing", tenant);
  expect_head_mirrors_get("/v1/requests/req_missing", tenant);
  expect_head_mirrors_get("/v1/orders/ord_missing", "");  // 401, as for GET
  expect_head_mirrors_get("/_mock/stats", admin);
  expect_head_mirrors_get("/_mock/faults", admin);
}

TEST_F(HeadRequestTest, AllowListsHeadWhereverGetIsAllowed) {
  EXPECT_EQ(not_allowed("PUT", "/healthz"), std::make_pair(405U, std::string("GET, HEAD")));
  EXPECT_EQ(not_allowed("POST", "/_mock/stats"), std::make_pair(405U, std::string("GET, HEAD")));
  EXPECT_EQ(not_allowed("PUT", "/v1/orders/ord_1"), std::make_pair(405U, std::string("GET, HEAD")));
  EXPECT_EQ(not_allowed("DELETE", "/v1/orders"),
            std::make_pair(405U, std::string("POST, GET, HEAD")));
  EXPECT_EQ(not_allowed("POST", "/_mock/faults"),
            std::make_pair(405U, std::string("PUT, DELETE, GET, HEAD")));
  // No GET, no HEAD: the 405 answer to HEAD comes without its content.
  EXPECT_EQ(not_allowed("HEAD", "/_mock/clock"), std::make_pair(405U, std::string("POST")));
}

}  // namespace
}  // namespace idem::mock
