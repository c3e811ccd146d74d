// idem::curl_transport over real sockets: against the mock server for ordinary answers, and
// against scripted raw peers for the failures the classification is about (contract section 8:
// "not sent" only when the request provably never left, otherwise "unknown").

#include "idem/curl_transport.hpp"

#include <gtest/gtest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/strand.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/use_future.hpp>
#include <boost/asio/write.hpp>
#include <cerrno>
#include <chrono>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "idem/transport_error.hpp"
#include "tests/idem/support/send_and_wait.hpp"
#include "tests/support/http/api_client.hpp"
#include "tests/support/http/read_http_request.hpp"
#include "tests/support/servers/running_server.hpp"
#include "tests/support/unused_port.hpp"
#include "transport/curl_failure.hpp"

namespace idem {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace std::chrono_literals;

using test::get_request;
using test::hang_limit;
using test::run_until;

std::string url(std::uint16_t port, std::string_view target = "/") {
  return "http://127.0.0.1:" + std::to_string(port) + std::string(target);
}

http_request post(std::string u, std::string body, header_list headers = {},
                  std::chrono::milliseconds timeout = 10s) {
  return {.method = "POST",
          .url = std::move(u),
          .headers = std::move(headers),
          .body = std::move(body),
          .timeout = timeout};
}

curl_transport_options with_limit(std::size_t max_response_bytes) {
  curl_transport_options o;
  o.max_response_bytes = max_response_bytes;
  return o;
}

// ---------------------------------------------------------------------------------------------
// A scripted HTTP peer on 127.0.0.1:0 for what the mock server never does on purpose: hang
// before answering, close or reset mid-request, answer too much. Runs on the test's io_context;
// what it saw is kept in shared state so that late completions never touch a dead object.

struct peer_state {
  int accepted = 0;
  int requests = 0;
  std::vector<std::string> received;  // every request, head and body, as read (or raw bytes)
  bool closed_idle = false;           // set by scripts that close a kept-alive connection
  bool client_closed = false;         // set by scripts that saw the client close its end
  std::vector<std::shared_ptr<tcp::socket>> sockets;
  std::shared_ptr<tcp::acceptor> acceptor;
};

class peer_session {
 public:
  peer_session(std::shared_ptr<tcp::socket> s, std::shared_ptr<peer_state> st, int index)
      : socket_(std::move(s)), state_(std::move(st)), index_(index) {}

  // Reads one request (head and Content-Length body); throws when the client goes away.
  asio::awaitable<std::string> read_request() {
    const auto raw = co_await kit::read_http_request(*socket_, buffer_);
    std::string request = raw.head + raw.body;
    state_->received.push_back(request);
    ++state_->requests;
    co_return request;
  }

  // Reads whatever the client sends next, at least one byte; throws when the client goes away.
  asio::awaitable<std::string> read_some() {
    std::string bytes(16 * 1024, '\0');
    const std::size_t n =
        co_await socket_->async_read_some(asio::buffer(bytes), asio::use_awaitable);
    bytes.resize(n);
    co_return bytes;
  }

  asio::awaitable<void> write(std::string_view bytes) {
    co_await asio::async_write(*socket_, asio::buffer(bytes), asio::use_awaitable);
  }

  // Waits until the client closes its end (or the test ends): an answer that never comes.
  asio::awaitable<void> wait_for_client_close() {
    char byte = 0;
    boost::system::error_code ec;
    while (!ec) {
      co_await socket_->async_read_some(asio::buffer(&byte, 1),
                                        asio::redirect_error(asio::use_awaitable, ec));
    }
  }

  void close() {
    boost::system::error_code ec;
    socket_->shutdown(tcp::socket::shutdown_both, ec);
    socket_->close(ec);
  }
  // Closes with an RST instead of a FIN (SO_LINGER with a zero timeout).
  void reset() {
    boost::system::error_code ec;
    socket_->set_option(asio::socket_base::linger(true, 0), ec);
    socket_->close(ec);
  }
  void stop_accepting() {
    boost::system::error_code ec;
    state_->acceptor->close(ec);
  }

  [[nodiscard]] int index() const noexcept { return index_; }
  peer_state& state() noexcept { return *state_; }

 private:
  std::shared_ptr<tcp::socket> socket_;
  std::shared_ptr<peer_state> state_;
  int index_;
  std::string buffer_;
};

constexpr std::string_view ok_response = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

class raw_peer {
 public:
  using script = std::function<asio::awaitable<void>(peer_session&)>;

  raw_peer(asio::io_context& io, script s) : state_(std::make_shared<peer_state>()) {
    state_->acceptor =
        std::make_shared<tcp::acceptor>(io, tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0});
    port_ = state_->acceptor->local_endpoint().port();
    asio::co_spawn(io, accept_loop(state_, std::move(s)), asio::detached);
  }
  ~raw_peer() {
    boost::system::error_code ec;
    state_->acceptor->close(ec);
    for (auto& s : state_->sockets)
      s->close(ec);
  }
  raw_peer(const raw_peer&) = delete;
  raw_peer& operator=(const raw_peer&) = delete;

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  [[nodiscard]] const peer_state& state() const noexcept { return *state_; }

 private:
  static asio::awaitable<void> accept_loop(std::shared_ptr<peer_state> st, script s) {
    for (;;) {
      boost::system::error_code ec;
      auto socket = std::make_shared<tcp::socket>(co_await asio::this_coro::executor);
      co_await st->acceptor->async_accept(*socket, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      st->sockets.push_back(socket);
      asio::co_spawn(co_await asio::this_coro::executor, run(socket, st, st->accepted++, s),
                     asio::detached);
    }
  }
  static asio::awaitable<void> run(std::shared_ptr<tcp::socket> socket,
                                   std::shared_ptr<peer_state> st, int index, script s) {
    peer_session session(std::move(socket), std::move(st), index);
    try {
      co_await s(session);
    } catch (const boost::system::system_error&) {
      // the client went away: that is what many scripts provoke
    }
  }

  std::shared_ptr<peer_state> state_;
  std::uint16_t port_ = 0;
};

asio::awaitable<void> answer_ok_forever(peer_session& s) {
  for (;;) {
    co_await s.read_request();
    co_await s.write(ok_response);
  }
}

asio::awaitable<void> never_answer(peer_session& s) {
  co_await s.read_request();
  co_await s.wait_for_client_close();
}

// For an https:// URL: keeps the client's first bytes (its TLS ClientHello) and never answers,
// so the client stays in the TLS handshake, with a connection open but no request written.
asio::awaitable<void> stall_the_tls_handshake(peer_session& s) {
  s.state().received.push_back(co_await s.read_some());
  co_await s.wait_for_client_close();
  s.state().client_closed = true;
}

// ---------------------------------------------------------------------------------------------

class curl_transport_test : public ::testing::Test {
 protected:
  transport_result send(transport& t, http_request req) {
    return test::send_and_wait(io_, t, std::move(req));
  }

  asio::io_context io_;
};

// --- ordinary answers from the mock server ----------------------------------------------------

TEST_F(curl_transport_test, GetReturnsTheResponse) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  auto r = send(t, get_request(url(server.port(), "/healthz")));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.failure, transport_failure::none);
  EXPECT_EQ(r.response.status, 200);
  EXPECT_NE(r.response.body.find("ok"), std::string::npos) << r.response.body;
  EXPECT_FALSE(r.reused_connection);
  EXPECT_EQ(t.in_flight(), 0u);
}

TEST_F(curl_transport_test, SecondRequestReusesTheKeptAliveConnection) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  auto first = send(t, get_request(url(server.port(), "/healthz")));
  auto second = send(t, get_request(url(server.port(), "/healthz")));
  ASSERT_FALSE(first.ec) << first.ec.message();
  ASSERT_FALSE(second.ec) << second.ec.message();
  EXPECT_FALSE(first.reused_connection);
  EXPECT_TRUE(second.reused_connection);
}

// A pooled connection is not watched: io_context::run() returns once the requests are done,
// and the connection is still there for the next request.
TEST_F(curl_transport_test, PooledConnectionDoesNotKeepTheIoContextBusy) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  bool done = false;
  t.async_send(get_request(url(server.port(), "/healthz")), [&](transport_result r) {
    done = true;
    EXPECT_FALSE(r.ec) << r.ec.message();
  });
  io_.run_for(hang_limit);  // returns early when no work is left
  EXPECT_TRUE(done);
  EXPECT_TRUE(io_.stopped()) << "something still waits on behalf of an idle connection";
  io_.restart();
  auto second = send(t, get_request(url(server.port(), "/healthz")));
  ASSERT_FALSE(second.ec) << second.ec.message();
  EXPECT_TRUE(second.reused_connection);
}

TEST_F(curl_transport_test, PostWithBodyCreatesTheOrderAndReturnsItsHeaders) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(server.port(), "/v1/orders"), kit::order_body("m-post-1").dump(),
                        {{"Authorization", "Bearer tenant-a"},
                         {"Idempotency-Key", "\"key-post-1\""},
                         {"Content-Type", "application/json"}}));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 201) << r.response.body;
  const std::string* location = r.response.header("location");
  ASSERT_NE(location, nullptr);
  EXPECT_TRUE(location->starts_with("/v1/orders/")) << *location;
  // Names are matched without regard to case, values are kept as sent.
  ASSERT_NE(r.response.header("CONTENT-TYPE"), nullptr);
  EXPECT_NE(r.response.header("Content-Type")->find("json"), std::string::npos);
  EXPECT_NE(r.response.body.find("m-post-1"), std::string::npos) << r.response.body;
}

TEST_F(curl_transport_test, ClientErrorIsAResponseNotAFailure) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  auto r = send(t, get_request(url(server.port(), "/v1/orders/ord_nope")));  // no credentials
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.failure, transport_failure::none);
  EXPECT_EQ(r.response.status, 401);
  EXPECT_NE(r.response.header("WWW-Authenticate"), nullptr);
}

TEST_F(curl_transport_test, ServerErrorIsAResponseNotAFailure) {
  kit::running_server server;
  kit::api_client api(server.port());
  api.set_faults({{"rules",
                   {{{"match", {{"method", "POST"}, {"route", "/v1/orders"}}},
                     {"fault", "status_before_processing"},
                     {"status", 503},
                     {"retry_after_s", 7}}}}});
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(server.port(), "/v1/orders"), kit::order_body("m-503").dump(),
                        {{"Authorization", "Bearer tenant-a"},
                         {"Idempotency-Key", "\"key-503\""},
                         {"Content-Type", "application/json"}}));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.failure, transport_failure::none);
  EXPECT_EQ(r.response.status, 503);
  ASSERT_NE(r.response.header("retry-after"), nullptr);
  EXPECT_EQ(*r.response.header("retry-after"), "7");
}

// --- what goes on the wire --------------------------------------------------------------------

TEST_F(curl_transport_test, EmptyPostSendsContentLengthZeroAndNoExpectOrInventedType) {
  raw_peer peer(io_, answer_ok_forever);
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(peer.port(), "/empty"), "", {{"X-Trace", "abc"}}));
  ASSERT_FALSE(r.ec) << r.ec.message();
  ASSERT_EQ(peer.state().received.size(), 1u);
  const std::string& req = peer.state().received[0];
  EXPECT_TRUE(req.starts_with("POST /empty HTTP/1.1\r\n")) << req;
  EXPECT_NE(req.find("\r\nContent-Length: 0\r\n"), std::string::npos) << req;
  EXPECT_NE(req.find("\r\nX-Trace: abc\r\n"), std::string::npos) << req;
  EXPECT_NE(req.find("\r\nUser-Agent: idem/" IDEM_VERSION_STRING "\r\n"), std::string::npos) << req;
  EXPECT_EQ(req.find("Expect:"), std::string::npos) << req;
  EXPECT_EQ(req.find("Content-Type:"), std::string::npos) << req;
  EXPECT_EQ(req.find("Transfer-Encoding:"), std::string::npos) << req;
}

TEST_F(curl_transport_test, LargePostIsSentWithoutExpectContinue) {
  raw_peer peer(io_, answer_ok_forever);
  curl_transport t(io_.get_executor());
  const std::string body(2 * 1024 * 1024, 'b');  // above curl's 1 MiB Expect threshold
  auto r =
      send(t, post(url(peer.port(), "/big"), body, {{"Content-Type", "application/octet-stream"}}));
  ASSERT_FALSE(r.ec) << r.ec.message();
  ASSERT_EQ(peer.state().received.size(), 1u);
  const std::string& req = peer.state().received[0];
  EXPECT_EQ(req.find("Expect:"), std::string::npos);
  EXPECT_TRUE(req.ends_with(body));
}

TEST_F(curl_transport_test, HeaderWithLineBreakIsRefusedBeforeAnythingIsSent) {
  raw_peer peer(io_, answer_ok_forever);
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(peer.port()), "", {{"X-Evil", "a\r\nX-Injected: 1"}}));
  EXPECT_EQ(r.ec, transport_errc::invalid_request);
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(peer.state().accepted, 0);
}

TEST_F(curl_transport_test, EveryHeaderThatCouldEndOrSplitItsLineIsRefused) {
  raw_peer peer(io_, answer_ok_forever);
  curl_transport t(io_.get_executor());
  const header_list refused[] = {
      {{"", "v"}},
      {{"X:Y", "v"}},
      {{"X Y", "v"}},
      {{"X\tY", "v"}},
      {{"X\rY", "v"}},
      {{"X\nY", "v"}},
      // A NUL would end the line early: curl would take "X" for the line and "Y: v" for the
      // next one.
      {{std::string("X\0Y", 3), "v"}},
      {{"X", "a\rb"}},
      {{"X", "a\nb"}},
      {{"X", std::string("a\0b", 3)}},
      {{"Ok", "1"}, {"X", "tail\n"}},  // not only the first header is checked
  };
  for (const auto& headers : refused) {
    auto r = send(t, post(url(peer.port()), "", headers));
    EXPECT_EQ(r.ec, transport_errc::invalid_request) << headers.back().first;
    EXPECT_EQ(r.failure, transport_failure::not_sent);
  }
  EXPECT_EQ(peer.state().accepted, 0);
  // Colons, blanks and tabs inside a value are the value's.
  auto r = send(t, post(url(peer.port()), "", {{"X-Fine", "a: b\tc"}}));
  ASSERT_FALSE(r.ec) << r.ec.message();
  ASSERT_EQ(peer.state().received.size(), 1u);
  EXPECT_NE(peer.state().received[0].find("\r\nX-Fine: a: b\tc\r\n"), std::string::npos);
}

TEST_F(curl_transport_test, ARequestsOwnUserAgentIsTheOnlyOneSent) {
  raw_peer peer(io_, answer_ok_forever);
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(peer.port()), "", {{"user-agent", "shop-app/2.1"}}));
  ASSERT_FALSE(r.ec) << r.ec.message();
  ASSERT_EQ(peer.state().received.size(), 1u);
  const std::string& req = peer.state().received[0];
  EXPECT_NE(req.find("\r\nuser-agent: shop-app/2.1\r\n"), std::string::npos) << req;
  EXPECT_EQ(req.find("idem/"), std::string::npos) << req;
}

TEST_F(curl_transport_test, AnEmptyUserAgentOptionSendsNone) {
  raw_peer peer(io_, answer_ok_forever);
  curl_transport_options options;
  options.user_agent.clear();
  curl_transport t(io_.get_executor(), options);
  auto r = send(t, post(url(peer.port()), "", {}));
  ASSERT_FALSE(r.ec) << r.ec.message();
  ASSERT_EQ(peer.state().received.size(), 1u);
  EXPECT_EQ(peer.state().received[0].find("User-Agent"), std::string::npos)
      << peer.state().received[0];
}

TEST_F(curl_transport_test, AUserAgentOptionThatWouldEndItsLineRefusesRequestsUnsent) {
  // The option is a header value like any other: a line break in it must not let a second
  // header (or a second request) onto the wire.
  raw_peer peer(io_, answer_ok_forever);
  curl_transport_options options;
  options.user_agent = "app/1\r\nX-Injected: 1";
  curl_transport t(io_.get_executor(), options);
  auto r = send(t, post(url(peer.port()), "", {}));
  EXPECT_EQ(r.ec, transport_errc::invalid_request);
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(peer.state().accepted, 0);
}

TEST_F(curl_transport_test, InterimResponseHeadersAreNotTheFinalOnes) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    co_await s.write(
        "HTTP/1.1 103 Early Hints\r\nLink: </style.css>\r\n\r\n"
        "HTTP/1.1 200 OK\r\nX-Final: yes\r\nX-Folded: one\r\n  two\r\nContent-Length: 2\r\n\r\nok");
    co_await s.wait_for_client_close();
  });
  curl_transport t(io_.get_executor());
  auto r = send(t, get_request(url(peer.port())));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.header("Link"), nullptr);
  ASSERT_NE(r.response.header("x-final"), nullptr);
  EXPECT_EQ(*r.response.header("x-final"), "yes");
  ASSERT_NE(r.response.header("X-Folded"), nullptr);
  EXPECT_EQ(*r.response.header("X-Folded"), "one two");
  EXPECT_EQ(r.response.body, "ok");
}

TEST_F(curl_transport_test, BlanksAroundAFieldValueAreNotPartOfIt) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    co_await s.write(
        "HTTP/1.1 200 OK\r\nRetry-After: \t 7 \t\r\nX-Inner:a  b\r\nX-Blank: \t \r\n"
        "X-Tab:\tv\r\nContent-Length: 2\r\n\r\nok");
    co_await s.wait_for_client_close();
  });
  curl_transport t(io_.get_executor());
  auto r = send(t, get_request(url(peer.port())));
  ASSERT_FALSE(r.ec) << r.ec.message();
  ASSERT_NE(r.response.header("Retry-After"), nullptr);
  EXPECT_EQ(*r.response.header("Retry-After"), "7");
  ASSERT_NE(r.response.header("X-Inner"), nullptr);
  EXPECT_EQ(*r.response.header("X-Inner"), "a  b");  // blanks inside stay
  ASSERT_NE(r.response.header("X-Blank"), nullptr);
  EXPECT_EQ(*r.response.header("X-Blank"), "");
  ASSERT_NE(r.response.header("X-Tab"), nullptr);
  EXPECT_EQ(*r.response.header("X-Tab"), "v");
}

TEST_F(curl_transport_test, RedirectIsReturnedNotFollowed) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    co_await s.write(
        "HTTP/1.1 307 Temporary Redirect\r\nLocation: /elsewhere\r\n"
        "Content-Length: 0\r\n\r\n");
    co_await s.wait_for_client_close();
  });
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(peer.port(), "/orders"), "{}"));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 307);
  EXPECT_EQ(peer.state().requests, 1);
}

// --- never sent -------------------------------------------------------------------------------

TEST_F(curl_transport_test, DeadPortIsNotSentConnectionRefused) {
  curl_transport t(io_.get_executor());
  auto r = send(t, get_request(url(kit::unused_port())));
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::connection_refused) << r.ec.message();
  EXPECT_EQ(r.ec, std::errc::connection_refused);
  EXPECT_FALSE(r.reused_connection);
}

TEST_F(curl_transport_test, UnresolvableHostIsNotSent) {
  curl_transport t(io_.get_executor());
  auto r = send(t, get_request("http://nonexistent.invalid/"));
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::resolve_failed) << r.ec.message();
}

TEST_F(curl_transport_test, UnsupportedSchemeIsNotSent) {
  curl_transport t(io_.get_executor());
  auto r = send(t, get_request("file:///etc/passwd"));
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::invalid_request) << r.ec.message();
}

TEST_F(curl_transport_test, AFinishedTransferLeavesNoTimerBehind) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  bool done = false;
  // Its time would run out only in an hour: the transport's own due time must not outlive it.
  t.async_send(get_request(url(server.port(), "/healthz"), 1h), [&](transport_result r) {
    done = true;
    EXPECT_FALSE(r.ec) << r.ec.message();
  });
  io_.run_for(hang_limit);  // returns early when no work is left
  EXPECT_TRUE(done);
  EXPECT_TRUE(io_.stopped()) << "a wait for a finished transfer's timeout is still pending";
}

TEST_F(curl_transport_test, ATimeoutTooLongForTheClockIsNoTimeoutAtAll) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  // now() + this overflows steady_clock: the transfer must not be due at once (or ever).
  auto r = send(t, get_request(url(server.port(), "/healthz"), std::chrono::milliseconds::max()));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 200);
}

TEST_F(curl_transport_test, NoTimeLeftIsNotSent) {
  curl_transport t(io_.get_executor());
  auto r = send(t, get_request(url(kit::unused_port()), 0ms));
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, std::errc::timed_out);
}

// A listener whose accept queue is full: the kernel drops further SYNs, so a connect neither
// succeeds nor fails until the client gives up.
class full_listener {
 public:
  explicit full_listener(asio::io_context& io) : acceptor_(io) {
    acceptor_.open(tcp::v4());
    acceptor_.bind({asio::ip::make_address("127.0.0.1"), 0});
    acceptor_.listen(1);  // Linux queues backlog + 1 connections
    for (int i = 0; i < 2; ++i) {
      fillers_.emplace_back(io);
      bool done = false;
      fillers_.back().async_connect(acceptor_.local_endpoint(),
                                    [&](boost::system::error_code) { done = true; });
      EXPECT_TRUE(run_until(io, [&] { return done; }));
    }
  }
  [[nodiscard]] std::uint16_t port() const { return acceptor_.local_endpoint().port(); }

 private:
  tcp::acceptor acceptor_;
  std::vector<tcp::socket> fillers_;
};

TEST_F(curl_transport_test, ConnectTimeoutIsNotSent) {
  full_listener listener(io_);
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(listener.port()), "{}", {}, 200ms));
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::timed_out) << r.ec.message();
}

// --- may have been sent -----------------------------------------------------------------------

TEST_F(curl_transport_test, NoAnswerAfterSendingIsTimeoutUnknown) {
  raw_peer peer(io_, never_answer);
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(peer.port()), "{}", {}, 200ms));
  EXPECT_EQ(r.failure, transport_failure::unknown);
  EXPECT_EQ(r.ec, transport_errc::timed_out) << r.ec.message();
  EXPECT_EQ(r.ec, std::errc::timed_out);
  EXPECT_EQ(peer.state().requests, 1);
}

TEST_F(curl_transport_test, CloseAfterReadingTheRequestIsUnknown) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    s.close();
  });
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(peer.port()), "{}"));
  EXPECT_EQ(r.failure, transport_failure::unknown);
  EXPECT_EQ(r.ec, transport_errc::connection_lost) << r.ec.message();
}

TEST_F(curl_transport_test, ResetAfterReadingTheRequestIsUnknown) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    s.reset();
  });
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(peer.port()), "{}"));
  EXPECT_EQ(r.failure, transport_failure::unknown);
  EXPECT_EQ(r.ec, transport_errc::connection_lost) << r.ec.message();
}

TEST_F(curl_transport_test, TruncatedBodyIsUnknown) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    co_await s.write("HTTP/1.1 201 Created\r\nContent-Length: 100\r\n\r\n{\"id\":");
    s.close();
  });
  curl_transport t(io_.get_executor());
  auto r = send(t, post(url(peer.port()), "{}"));
  EXPECT_EQ(r.failure, transport_failure::unknown);
  EXPECT_EQ(r.ec, transport_errc::connection_lost) << r.ec.message();
}

TEST_F(curl_transport_test, DeclaredOversizeResponseIsUnknownTooLarge) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    co_await s.write("HTTP/1.1 200 OK\r\nContent-Length: 5000\r\n\r\n" + std::string(5000, 'x'));
    co_await s.wait_for_client_close();
  });
  curl_transport t(io_.get_executor(), with_limit(1024));
  auto r = send(t, post(url(peer.port()), "{}"));
  EXPECT_EQ(r.failure, transport_failure::unknown);
  EXPECT_EQ(r.ec, transport_errc::response_too_large) << r.ec.message();
}

TEST_F(curl_transport_test, StreamedOversizeResponseIsUnknownTooLarge) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    co_await s.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n");
    for (int i = 0; i < 8; ++i)
      co_await s.write("200\r\n" + std::string(0x200, 'x') + "\r\n");
    co_await s.write("0\r\n\r\n");
    co_await s.wait_for_client_close();
  });
  curl_transport t(io_.get_executor(), with_limit(1024));
  auto r = send(t, post(url(peer.port()), "{}"));
  EXPECT_EQ(r.failure, transport_failure::unknown);
  EXPECT_EQ(r.ec, transport_errc::response_too_large) << r.ec.message();
}

// --- reused connections -------------------------------------------------------------------------

// The server closes a kept-alive connection while it is idle (its idle timeout). curl notices
// the close before reusing the connection and opens a new one: the request succeeds.
TEST_F(curl_transport_test, IdleConnectionClosedByServerIsNotReused) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    co_await s.write(ok_response);
    if (s.index() == 0) {
      s.close();
      s.state().closed_idle = true;
      co_return;
    }
    co_await s.wait_for_client_close();
  });
  curl_transport t(io_.get_executor());
  ASSERT_FALSE(send(t, get_request(url(peer.port()))).ec);
  ASSERT_TRUE(run_until(io_, [&] { return peer.state().closed_idle; }));
  auto r = send(t, get_request(url(peer.port())));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 200);
  EXPECT_FALSE(r.reused_connection);
  EXPECT_EQ(peer.state().accepted, 2);
  EXPECT_EQ(peer.state().requests, 2);
}

// The server reads the second request on the reused connection, then resets it without an
// answer. Observed with libcurl 7.88: curl retries such a request by itself, once, on a new
// connection (it does so when a reused connection yields no response byte at all), so the
// server sees the request twice and the caller gets the second answer, reported as coming from
// a new connection. Harmless because every attempt of an intent carries the same
// Idempotency-Key. Should curl ever stop retrying, the only acceptable alternative is unknown.
TEST_F(curl_transport_test, ReusedConnectionLostUnderTheRequestIsRetriedOrUnknown) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    co_await s.write(ok_response);
    if (s.index() == 0) {
      co_await s.read_request();
      s.reset();
      co_return;
    }
    co_await s.wait_for_client_close();
  });
  curl_transport t(io_.get_executor());
  ASSERT_FALSE(send(t, get_request(url(peer.port()))).ec);
  auto r = send(t, post(url(peer.port(), "/second"), "{}"));
  if (r.failure == transport_failure::none) {
    EXPECT_EQ(r.response.status, 200);
    EXPECT_FALSE(r.reused_connection);
    EXPECT_EQ(peer.state().accepted, 2);
    EXPECT_EQ(peer.state().requests, 3);  // the second request arrived twice
  } else {
    EXPECT_EQ(r.failure, transport_failure::unknown) << r.ec.message();
  }
  RecordProperty("observed", r.failure == transport_failure::none ? "retried by curl, succeeded"
                                                                  : "unknown: " + r.ec.message());
}

// The same, but curl's retry finds the server gone: "connection refused" on a NEW connection,
// which alone would read as "not sent", although the request did reach the server on the
// reused connection before. It must be unknown.
TEST_F(curl_transport_test, RefusedRetryAfterLosingAReusedConnectionIsUnknown) {
  raw_peer peer(io_, [](peer_session& s) -> asio::awaitable<void> {
    co_await s.read_request();
    co_await s.write(ok_response);
    co_await s.read_request();
    s.stop_accepting();
    s.reset();
  });
  curl_transport t(io_.get_executor());
  ASSERT_FALSE(send(t, get_request(url(peer.port()))).ec);
  auto r = send(t, post(url(peer.port(), "/second"), "{}"));
  EXPECT_EQ(r.failure, transport_failure::unknown) << r.ec.message();
  EXPECT_EQ(peer.state().requests, 2);
  RecordProperty("observed_error", r.ec.message());
}

// --- completion and cancellation --------------------------------------------------------------

TEST_F(curl_transport_test, HandlerIsNeverInvokedInline) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  for (auto req :
       {get_request(url(server.port(), "/healthz")),  // a response
        get_request(url(server.port()), 0ms), post(url(server.port()), "", {{"Bad Name", "x"}})}) {
    bool returned = false;
    std::optional<bool> returned_when_called;
    t.async_send(req, [&](transport_result) { returned_when_called = returned; });
    returned = true;
    ASSERT_TRUE(run_until(io_, [&] { return returned_when_called.has_value(); }));
    EXPECT_TRUE(*returned_when_called) << req.url;
  }
}

TEST_F(curl_transport_test, HandlerRunsOnItsAssociatedExecutor) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  asio::io_context other;
  bool called = false;
  bool on_other = false;
  t.async_send(get_request(url(server.port(), "/healthz")),
               asio::bind_executor(other, [&](transport_result r) {
                 called = true;
                 on_other = other.get_executor().running_in_this_thread();
                 EXPECT_FALSE(r.ec) << r.ec.message();
               }));
  ASSERT_TRUE(run_until(io_, [&] { return t.in_flight() == 0; }));
  io_.poll();  // the completion was posted through io_ to `other`
  EXPECT_FALSE(called);
  ASSERT_TRUE(run_until(other, [&] { return called; }));
  EXPECT_TRUE(on_other);
}

// On a strand (as the client builds it), a result goes straight to that strand when the
// handler is bound to it; a handler bound to another strand still runs on its own (which
// Asio may enter from within ours: a dispatch).
TEST_F(curl_transport_test, OnAStrandTheHandlerRunsOnItsOwnStrandWhetherOursOrAnother) {
  kit::running_server server;
  const auto ours = asio::make_strand(asio::any_io_executor(io_.get_executor()));
  const auto theirs = asio::make_strand(asio::any_io_executor(io_.get_executor()));
  curl_transport t(ours);
  int called = 0;
  bool same_on_ours = false;
  bool other_on_theirs = false;
  asio::post(ours, [&] {
    t.async_send(get_request(url(server.port(), "/healthz")),
                 asio::bind_executor(ours, [&](transport_result r) {
                   ++called;
                   same_on_ours = ours.running_in_this_thread();
                   EXPECT_FALSE(r.ec) << r.ec.message();
                 }));
    t.async_send(get_request(url(server.port(), "/healthz")),
                 asio::bind_executor(theirs, [&](transport_result r) {
                   ++called;
                   other_on_theirs = theirs.running_in_this_thread();
                   EXPECT_FALSE(r.ec) << r.ec.message();
                 }));
  });
  ASSERT_TRUE(run_until(io_, [&] { return called == 2; }));
  EXPECT_TRUE(same_on_ours);
  EXPECT_TRUE(other_on_theirs);
}

// A handler bound to the transport's own strand (as the client's are) may start another
// request, and may drop the last reference to the transport while other transfers are in
// flight: those then end, abandoned, each on its handler's strand.
TEST_F(curl_transport_test, AHandlerOnOurStrandMayStartARequestAndEndTheTransport) {
  raw_peer answers(io_, answer_ok_forever);
  raw_peer silent(io_, never_answer);
  const auto ours = asio::make_strand(asio::any_io_executor(io_.get_executor()));
  auto t = std::make_shared<curl_transport>(ours);
  int first = 0;
  int second = 0;
  std::vector<transport_result> stalled;
  asio::post(ours, [&] {
    for (int i = 0; i < 3; ++i) {
      t->async_send(get_request(url(silent.port())),
                    asio::bind_executor(ours, [&](transport_result r) {
                      EXPECT_TRUE(ours.running_in_this_thread());
                      stalled.push_back(std::move(r));
                    }));
    }
    t->async_send(get_request(url(answers.port())),
                  asio::bind_executor(ours, [&](transport_result r) {
                    ++first;
                    EXPECT_FALSE(r.ec) << r.ec.message();
                    t->async_send(get_request(url(answers.port())),
                                  asio::bind_executor(ours, [&](transport_result r2) {
                                    ++second;
                                    EXPECT_FALSE(r2.ec) << r2.ec.message();
                                    EXPECT_EQ(t->in_flight(), 3u);
                                    t.reset();  // the last reference
                                  }));
                  }));
  });
  ASSERT_TRUE(run_until(io_, [&] { return second == 1 && stalled.size() == 3; }));
  EXPECT_EQ(first, 1);
  for (const transport_result& r : stalled)
    EXPECT_EQ(r.ec, std::errc::operation_canceled) << r.ec.message();
}

TEST_F(curl_transport_test, UseFutureWorks) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  std::future<transport_result> f =
      t.async_send(get_request(url(server.port(), "/healthz")), asio::use_future);
  ASSERT_TRUE(run_until(io_, [&] { return f.wait_for(0s) == std::future_status::ready; }));
  auto r = f.get();
  EXPECT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 200);
}

TEST_F(curl_transport_test, UseAwaitableWorks) {
  kit::running_server server;
  curl_transport t(io_.get_executor());
  std::optional<transport_result> out;
  asio::co_spawn(
      io_,
      [&]() -> asio::awaitable<void> {
        out =
            co_await t.async_send(get_request(url(server.port(), "/healthz")), asio::use_awaitable);
      },
      asio::detached);
  ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
  EXPECT_FALSE(out->ec) << out->ec.message();
  EXPECT_EQ(out->response.status, 200);
}

TEST_F(curl_transport_test, CancelAfterTheRequestLeftIsUnknown) {
  raw_peer peer(io_, never_answer);
  curl_transport t(io_.get_executor());
  asio::cancellation_signal signal;
  std::optional<transport_result> out;
  t.async_send(
      post(url(peer.port()), "{}"),
      asio::bind_cancellation_slot(signal.slot(), [&](transport_result r) { out = std::move(r); }));
  ASSERT_TRUE(run_until(io_, [&] { return peer.state().requests == 1; }));
  signal.emit(asio::cancellation_type::terminal);
  ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
  EXPECT_EQ(out->ec, std::errc::operation_canceled);
  EXPECT_EQ(out->failure, transport_failure::unknown);
  EXPECT_EQ(t.in_flight(), 0u);
}

// Cancelled in the connect phase: curl has a connection open and is in the TLS handshake (the
// peer holds its ClientHello and never answers), so its pre-request callback has not run and no
// byte of the request can have left. Every cancellation type ends the transfer then, as not
// sent: terminal always does, and partial and total may, since ending it has no side effect yet.
TEST_F(curl_transport_test, CancelDuringTheTlsHandshakeIsNotSent) {
  for (auto type : {asio::cancellation_type::terminal, asio::cancellation_type::partial,
                    asio::cancellation_type::total}) {
    SCOPED_TRACE("cancellation_type " + std::to_string(static_cast<int>(type)));
    raw_peer peer(io_, stall_the_tls_handshake);
    curl_transport t(io_.get_executor());
    asio::cancellation_signal signal;
    std::optional<transport_result> out;
    t.async_send(post("https://127.0.0.1:" + std::to_string(peer.port()) + "/", "{}"),
                 asio::bind_cancellation_slot(signal.slot(),
                                              [&](transport_result r) { out = std::move(r); }));
    ASSERT_TRUE(run_until(io_, [&] { return peer.state().received.size() == 1; }));
    ASSERT_FALSE(out.has_value()) << "ended before the cancellation: " << out->ec.message();
    const std::string& first = peer.state().received[0];
    ASSERT_FALSE(first.empty());
    EXPECT_EQ(first.front(), '\x16') << "not a TLS handshake record: " << first;
    signal.emit(type);
    ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
    EXPECT_EQ(out->ec, std::errc::operation_canceled) << out->ec.message();
    EXPECT_EQ(out->failure, transport_failure::not_sent);
    EXPECT_FALSE(out->reused_connection);
    EXPECT_EQ(t.in_flight(), 0u);
    // The half-open connection is dropped, not kept for later.
    EXPECT_TRUE(run_until(io_, [&] { return peer.state().client_closed; }));
    EXPECT_EQ(peer.state().accepted, 1);
  }
}

// Total cancellation promises no side effects; once the request may have left, the transfer
// goes on (and here times out).
TEST_F(curl_transport_test, TotalCancellationAfterTheRequestLeftIsIgnored) {
  raw_peer peer(io_, never_answer);
  curl_transport t(io_.get_executor());
  asio::cancellation_signal signal;
  std::optional<transport_result> out;
  t.async_send(
      post(url(peer.port()), "{}", {}, 300ms),
      asio::bind_cancellation_slot(signal.slot(), [&](transport_result r) { out = std::move(r); }));
  ASSERT_TRUE(run_until(io_, [&] { return peer.state().requests == 1; }));
  signal.emit(asio::cancellation_type::total);
  ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
  EXPECT_EQ(out->ec, transport_errc::timed_out) << out->ec.message();
  EXPECT_EQ(out->failure, transport_failure::unknown);
}

TEST_F(curl_transport_test, DestroyingWithTransfersInFlightCancelsEveryOne) {
  raw_peer peer(io_, never_answer);
  auto t = std::make_unique<curl_transport>(io_.get_executor());
  constexpr int n = 100;
  std::vector<std::optional<transport_result>> results(n);
  for (int i = 0; i < n; ++i) {
    t->async_send(post(url(peer.port()), "{}"),
                  [&results, i](transport_result r) { results[i] = std::move(r); });
  }
  ASSERT_TRUE(run_until(io_, [&] { return peer.state().requests == n; }));
  EXPECT_EQ(t->in_flight(), static_cast<std::size_t>(n));
  t.reset();
  const auto all_done = [&] {
    return std::ranges::all_of(results, [](const auto& r) { return r.has_value(); });
  };
  EXPECT_FALSE(std::ranges::any_of(results, [](const auto& r) { return r.has_value(); }))
      << "completed inline from the destructor";
  ASSERT_TRUE(run_until(io_, all_done));
  for (const auto& r : results) {
    EXPECT_EQ(r->ec, std::errc::operation_canceled);
    EXPECT_EQ(r->failure, transport_failure::unknown);
  }
}

TEST_F(curl_transport_test, DestroyingBeforeAnythingRanCancelsAsNotSent) {
  raw_peer peer(io_, never_answer);
  auto t = std::make_unique<curl_transport>(io_.get_executor());
  std::vector<std::optional<transport_result>> results(10);
  for (int i = 0; i < 10; ++i) {
    t->async_send(get_request(url(peer.port())),
                  [&results, i](transport_result r) { results[i] = std::move(r); });
  }
  t.reset();
  ASSERT_TRUE(run_until(io_, [&] {
    return std::ranges::all_of(results, [](const auto& r) { return r.has_value(); });
  }));
  for (const auto& r : results) {
    EXPECT_EQ(r->ec, std::errc::operation_canceled);
    EXPECT_EQ(r->failure, transport_failure::not_sent);
  }
  EXPECT_EQ(peer.state().requests, 0);
}

TEST_F(curl_transport_test, ManyConcurrentTransfersAllComplete) {
  kit::running_server server;
  curl_transport_options options;
  options.max_idle_connections = 4;  // fewer than the transfers: some connections are dropped
  curl_transport t(io_.get_executor(), options);
  constexpr int n = 40;
  int ok = 0;
  int done = 0;
  for (int round = 0; round < 2; ++round) {
    for (int i = 0; i < n; ++i) {
      t.async_send(get_request(url(server.port(), "/healthz")), [&](transport_result r) {
        ++done;
        if (!r.ec && r.response.status == 200) ++ok;
      });
    }
    ASSERT_TRUE(run_until(io_, [&] { return done == n * (round + 1); }));
  }
  EXPECT_EQ(ok, 2 * n);
}

// --- the rules, without a network ---------------------------------------------------------------

TEST(curl_failure_classification, ConnectPhaseFailuresBeforeTheRequestStartedAreNotSent) {
  for (CURLcode code :
       {CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT,
        CURLE_SSL_CONNECT_ERROR, CURLE_PEER_FAILED_VERIFICATION, CURLE_SSL_CACERT_BADFILE}) {
    auto v = detail::classify_curl_failure({.code = code});
    EXPECT_EQ(v.failure, transport_failure::not_sent) << curl_easy_strerror(code);
  }
}

TEST(curl_failure_classification, AnyFailureAfterTheRequestStartedIsUnknown) {
  for (CURLcode code : {CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_CONNECT, CURLE_OPERATION_TIMEDOUT,
                        CURLE_SSL_CONNECT_ERROR, CURLE_GOT_NOTHING, CURLE_RECV_ERROR,
                        CURLE_SEND_ERROR, CURLE_PARTIAL_FILE}) {
    auto v = detail::classify_curl_failure({.code = code, .request_started = true});
    EXPECT_EQ(v.failure, transport_failure::unknown) << curl_easy_strerror(code);
    auto sized = detail::classify_curl_failure({.code = code, .request_size = 120});
    EXPECT_EQ(sized.failure, transport_failure::unknown) << curl_easy_strerror(code);
  }
}

TEST(curl_failure_classification, FailuresThatOnlyHappenAfterSendingAreNeverNotSent) {
  for (CURLcode code : {CURLE_GOT_NOTHING, CURLE_RECV_ERROR, CURLE_SEND_ERROR, CURLE_PARTIAL_FILE,
                        CURLE_WRITE_ERROR, CURLE_WEIRD_SERVER_REPLY}) {
    EXPECT_EQ(detail::classify_curl_failure({.code = code}).failure, transport_failure::unknown)
        << curl_easy_strerror(code);
  }
}

TEST(curl_failure_classification, ErrorCodesNameTheFailure) {
  using detail::classify_curl_failure;
  EXPECT_EQ(classify_curl_failure({.code = CURLE_COULDNT_CONNECT, .os_errno = ECONNREFUSED}).ec,
            transport_errc::connection_refused);
  EXPECT_EQ(classify_curl_failure({.code = CURLE_COULDNT_CONNECT, .os_errno = ENETUNREACH}).ec,
            transport_errc::connect_failed);
  EXPECT_EQ(classify_curl_failure({.code = CURLE_WRITE_ERROR, .too_large = true}).ec,
            transport_errc::response_too_large);
  EXPECT_EQ(classify_curl_failure({.code = CURLE_FILESIZE_EXCEEDED}).ec,
            transport_errc::response_too_large);
  EXPECT_EQ(classify_curl_failure({.code = CURLE_GOT_NOTHING}).ec, transport_errc::connection_lost);
  EXPECT_EQ(classify_curl_failure({.code = CURLE_PEER_FAILED_VERIFICATION}).ec,
            transport_errc::certificate_rejected);
  EXPECT_EQ(classify_curl_failure({.code = CURLE_SSL_CACERT_BADFILE}).ec,
            transport_errc::certificate_rejected);
  EXPECT_EQ(classify_curl_failure({.code = CURLE_SSL_CONNECT_ERROR}).ec,
            transport_errc::tls_failed);
  // A code without a name here keeps curl's own and its text.
  auto other = classify_curl_failure({.code = CURLE_TOO_MANY_REDIRECTS}).ec;
  EXPECT_EQ(other.category(), transport_category());
  EXPECT_NE(other.message().find(curl_easy_strerror(CURLE_TOO_MANY_REDIRECTS)), std::string::npos)
      << other.message();
}

TEST(curl_failure_classification, AbandonedTransferIsNotSentOnlyBeforeTheRequestStarted) {
  EXPECT_EQ(detail::classify_abandoned(false, 0), transport_failure::not_sent);
  EXPECT_EQ(detail::classify_abandoned(true, 0), transport_failure::unknown);
  EXPECT_EQ(detail::classify_abandoned(false, 57), transport_failure::unknown);
}

TEST(transport_error, CodesCompareWithPortableConditions) {
  std::error_code refused = transport_errc::connection_refused;
  EXPECT_EQ(refused, std::errc::connection_refused);
  EXPECT_EQ(std::error_code(transport_errc::timed_out), std::errc::timed_out);
  EXPECT_NE(std::error_code(transport_errc::connection_lost), std::errc::timed_out);
  EXPECT_STREQ(transport_category().name(), "idem.transport");
  for (int v = 1; v <= static_cast<int>(transport_errc::certificate_rejected); ++v) {
    EXPECT_NE(std::error_code(v, transport_category()).message(), "unknown transport error") << v;
  }
}

TEST(http_response, HeaderFindsTheFirstFieldByCaseInsensitiveName) {
  http_response r{.status = 200,
                  .headers = {{"Set-Cookie", "a=1"}, {"set-cookie", "b=2"}, {"X-Empty", ""}},
                  .body = ""};
  ASSERT_NE(r.header("SET-COOKIE"), nullptr);
  EXPECT_EQ(*r.header("SET-COOKIE"), "a=1");
  ASSERT_NE(r.header("x-empty"), nullptr);
  EXPECT_EQ(*r.header("x-empty"), "");
  EXPECT_EQ(r.header("Set-Cookie2"), nullptr);
  EXPECT_EQ(r.header(""), nullptr);
}

}  // namespace
}  // namespace idem
