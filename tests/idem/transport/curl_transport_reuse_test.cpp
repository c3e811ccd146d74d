// What idem::curl_transport reuses from one request to the next, and what it must not: easy
// handles come from a pool (each request sets its own options and clears its pointers), connections
// stay cached for as many transfers as are in flight. Against a loopback peer that records every
// request and counts the connections it accepted.

#include <gtest/gtest.h>

#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "idem/curl_transport.hpp"
#include "tests/idem/support/send_and_wait.hpp"
#include "tests/support/http/read_http_request.hpp"

namespace idem {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace std::chrono_literals;
using test::run_until;

// Answers every request on every connection with 200, keeping connections open.
class recording_peer {
 public:
  struct state {
    int accepted = 0;
    std::vector<kit::raw_request> requests;
    std::vector<std::shared_ptr<tcp::socket>> sockets;
  };

  explicit recording_peer(asio::io_context& io)
      : state_(std::make_shared<state>()),
        acceptor_(std::make_shared<tcp::acceptor>(
            io, tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0})) {
    asio::co_spawn(io, accept_loop(acceptor_, state_), asio::detached);
  }
  ~recording_peer() {
    boost::system::error_code ec;
    acceptor_->close(ec);
    for (auto& s : state_->sockets)
      s->close(ec);
  }
  recording_peer(const recording_peer&) = delete;
  recording_peer& operator=(const recording_peer&) = delete;

  [[nodiscard]] std::string url() const {
    return "http://127.0.0.1:" + std::to_string(acceptor_->local_endpoint().port()) + "/r";
  }
  [[nodiscard]] const state& seen() const noexcept { return *state_; }

 private:
  static asio::awaitable<void> accept_loop(std::shared_ptr<tcp::acceptor> acceptor,
                                           std::shared_ptr<state> st) {
    for (;;) {
      auto socket = std::make_shared<tcp::socket>(co_await asio::this_coro::executor);
      boost::system::error_code ec;
      co_await acceptor->async_accept(*socket, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      ++st->accepted;
      st->sockets.push_back(socket);
      asio::co_spawn(co_await asio::this_coro::executor, serve(socket, st), asio::detached);
    }
  }
  static asio::awaitable<void> serve(std::shared_ptr<tcp::socket> socket,
                                     std::shared_ptr<state> st) {
    static constexpr std::string_view ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    std::string buffer;
    try {
      for (;;) {
        st->requests.push_back(co_await kit::read_http_request(*socket, buffer));
        co_await asio::async_write(*socket, asio::buffer(ok), asio::use_awaitable);
      }
    } catch (const boost::system::system_error&) {
      // the client closed the connection
    }
  }

  std::shared_ptr<state> state_;
  std::shared_ptr<tcp::acceptor> acceptor_;
};

http_request request(std::string method, std::string url, header_list headers = {},
                     std::string body = {}) {
  return {.method = std::move(method),
          .url = std::move(url),
          .headers = std::move(headers),
          .body = std::move(body),
          .timeout = 10s};
}

bool has_line(const std::string& head, std::string_view start) {
  return head.find(std::string("\r\n").append(start)) != std::string::npos;
}

class curl_transport_reuse_test : public ::testing::Test {
 protected:
  transport_result send(transport& t, http_request req) {
    return test::send_and_wait(io_, t, std::move(req));
  }

  asio::io_context io_;
};

TEST_F(curl_transport_reuse_test, NextRequestCarriesNothingOfThePreviousOne) {
  recording_peer peer(io_);
  curl_transport t(io_.get_executor());
  // One after the other, so that each takes the handle the one before gave back.
  ASSERT_FALSE(send(t, request("PUT", peer.url(), {{"X-First", "1"}, {"Content-Type", "text/x"}},
                               "first-body"))
                   .ec);
  ASSERT_FALSE(send(t, request("GET", peer.url())).ec);
  ASSERT_FALSE(send(t, request("HEAD", peer.url(), {{"X-Third", "3"}})).ec);
  ASSERT_FALSE(send(t, request("POST", peer.url(), {}, "fourth")).ec);
  ASSERT_EQ(peer.seen().requests.size(), 4U);
  const auto& r = peer.seen().requests;

  EXPECT_TRUE(r[0].head.starts_with("PUT /r HTTP/1.1\r\n")) << r[0].head;
  EXPECT_EQ(r[0].body, "first-body");

  EXPECT_TRUE(r[1].head.starts_with("GET /r HTTP/1.1\r\n")) << r[1].head;
  EXPECT_FALSE(has_line(r[1].head, "X-First")) << r[1].head;
  EXPECT_FALSE(has_line(r[1].head, "Content-Type")) << r[1].head;
  EXPECT_FALSE(has_line(r[1].head, "Content-Length")) << r[1].head;
  EXPECT_EQ(r[1].body, "");

  EXPECT_TRUE(r[2].head.starts_with("HEAD /r HTTP/1.1\r\n")) << r[2].head;
  EXPECT_TRUE(has_line(r[2].head, "X-Third: 3")) << r[2].head;
  EXPECT_FALSE(has_line(r[2].head, "X-First")) << r[2].head;

  // After a HEAD (no body expected): a POST sends its body again and reads the answer's.
  EXPECT_TRUE(r[3].head.starts_with("POST /r HTTP/1.1\r\n")) << r[3].head;
  EXPECT_FALSE(has_line(r[3].head, "X-Third")) << r[3].head;
  EXPECT_TRUE(has_line(r[3].head, "Content-Length: 6")) << r[3].head;
  EXPECT_EQ(r[3].body, "fourth");
}

TEST_F(curl_transport_reuse_test, AMethodOfItsOwnDoesNotOutliveItsRequest) {
  // A kept handle keeps its options: a PATCH's method and body must not reach the next one.
  recording_peer peer(io_);
  curl_transport t(io_.get_executor());
  ASSERT_FALSE(send(t, request("PATCH", peer.url(), {}, "patched")).ec);
  ASSERT_FALSE(send(t, request("POST", peer.url(), {}, "posted")).ec);
  ASSERT_FALSE(send(t, request("DELETE", peer.url())).ec);
  ASSERT_FALSE(send(t, request("GET", peer.url())).ec);
  ASSERT_EQ(peer.seen().requests.size(), 4U);
  const auto& r = peer.seen().requests;
  EXPECT_TRUE(r[0].head.starts_with("PATCH /r HTTP/1.1\r\n")) << r[0].head;
  EXPECT_EQ(r[0].body, "patched");
  EXPECT_TRUE(r[1].head.starts_with("POST /r HTTP/1.1\r\n")) << r[1].head;
  EXPECT_EQ(r[1].body, "posted");
  EXPECT_TRUE(r[2].head.starts_with("DELETE /r HTTP/1.1\r\n")) << r[2].head;
  EXPECT_EQ(r[2].body, "");
  EXPECT_TRUE(r[3].head.starts_with("GET /r HTTP/1.1\r\n")) << r[3].head;
  EXPECT_FALSE(has_line(r[3].head, "Content-Length")) << r[3].head;
  EXPECT_EQ(r[3].body, "");
}

TEST_F(curl_transport_reuse_test, EachRequestGoesWhereItsOwnUrlSays) {
  // A kept handle keeps the URL its last request parsed (CURLOPT_CURLU): one to another path,
  // query or server must not go where the last one went.
  recording_peer a(io_);
  recording_peer b(io_);
  curl_transport t(io_.get_executor());
  const std::string base_a = a.url().substr(0, a.url().size() - 2);  // without "/r"
  const std::string base_b = b.url().substr(0, b.url().size() - 2);
  ASSERT_FALSE(send(t, request("POST", base_a + "/v1/orders", {}, "1")).ec);
  ASSERT_FALSE(send(t, request("POST", base_a + "/v1/orders", {}, "2")).ec);
  ASSERT_FALSE(send(t, request("GET", base_a + "/v1/orders?merchant_order_id=m-3")).ec);
  ASSERT_FALSE(send(t, request("POST", base_b + "/v1/orders", {}, "4")).ec);
  // No scheme: guessed (http), never read against the last URL as a relative reference.
  const std::string schemeless_b = base_b.substr(std::string("http://").size());
  ASSERT_FALSE(send(t, request("POST", schemeless_b + "/v1/orders/o-2/cancel", {}, "4b")).ec);
  // Refused by curl's URL parser: nothing sent, and the next request is not held back by it.
  const auto bad = send(t, request("POST", "http://127.0.0.1:99999/v1/orders", {}, "5"));
  EXPECT_EQ(bad.failure, transport_failure::not_sent);
  EXPECT_EQ(bad.ec, transport_errc::invalid_request) << bad.ec.message();
  ASSERT_FALSE(send(t, request("POST", base_a + "/v1/orders/o-1/payments", {}, "6")).ec);
  ASSERT_FALSE(send(t, request("POST", base_a + "/v1/orders", {}, "7")).ec);

  const auto& ra = a.seen().requests;
  const auto& rb = b.seen().requests;
  ASSERT_EQ(ra.size(), 5U);
  ASSERT_EQ(rb.size(), 2U);
  EXPECT_TRUE(ra[0].head.starts_with("POST /v1/orders HTTP/1.1\r\n")) << ra[0].head;
  EXPECT_TRUE(ra[1].head.starts_with("POST /v1/orders HTTP/1.1\r\n")) << ra[1].head;
  EXPECT_TRUE(ra[2].head.starts_with("GET /v1/orders?merchant_order_id=m-3 HTTP/1.1\r\n"))
      << ra[2].head;
  EXPECT_TRUE(rb[0].head.starts_with("POST /v1/orders HTTP/1.1\r\n")) << rb[0].head;
  EXPECT_EQ(rb[0].body, "4");
  EXPECT_TRUE(rb[1].head.starts_with("POST /v1/orders/o-2/cancel HTTP/1.1\r\n")) << rb[1].head;
  EXPECT_EQ(rb[1].body, "4b");
  EXPECT_TRUE(ra[3].head.starts_with("POST /v1/orders/o-1/payments HTTP/1.1\r\n")) << ra[3].head;
  EXPECT_EQ(ra[3].body, "6");
  EXPECT_TRUE(ra[4].head.starts_with("POST /v1/orders HTTP/1.1\r\n")) << ra[4].head;
  EXPECT_EQ(ra[4].body, "7");
  const std::string host_a = "Host: " + base_a.substr(std::string("http://").size());
  EXPECT_TRUE(has_line(ra[4].head, host_a)) << ra[4].head;
}

TEST_F(curl_transport_reuse_test, ResponseOfTheNextRequestIsItsOwn) {
  recording_peer peer(io_);
  curl_transport t(io_.get_executor());
  auto first = send(t, request("GET", peer.url()));
  auto second = send(t, request("GET", peer.url()));
  ASSERT_FALSE(second.ec) << second.ec.message();
  EXPECT_EQ(second.response.body, "ok");  // not "okok": nothing collected earlier is kept
  EXPECT_EQ(second.response.headers.size(), 1U);
  EXPECT_TRUE(second.reused_connection);
}

TEST_F(curl_transport_reuse_test, ReusedHandleCancelledBeforeItSentIsNotSent) {
  recording_peer peer(io_);
  curl_transport t(io_.get_executor());
  ASSERT_FALSE(send(t, request("POST", peer.url(), {}, "sent")).ec);
  // The next request gets the handle whose last transfer did send, and stalls in a TLS
  // handshake (the peer waits for an HTTP head that never comes): nothing about the last
  // transfer may make this one look sent.
  std::string https_url = peer.url();
  https_url.replace(0, 4, "https");
  std::optional<transport_result> out;
  asio::cancellation_signal signal;
  t.async_send(
      request("POST", https_url, {}, "never"),
      asio::bind_cancellation_slot(signal.slot(), [&](transport_result r) { out = std::move(r); }));
  ASSERT_TRUE(run_until(io_, [&] { return peer.seen().accepted == 2; }));
  signal.emit(asio::cancellation_type::terminal);
  ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
  EXPECT_EQ(out->ec, std::errc::operation_canceled);
  EXPECT_EQ(out->failure, transport_failure::not_sent);
  EXPECT_FALSE(out->reused_connection);
  EXPECT_EQ(peer.seen().requests.size(), 1U);
}

TEST_F(curl_transport_reuse_test, ReusedHandleDestroyedBeforeItRanIsNotSent) {
  // Ended before curl looked at it at all: what curl reports is still the handle's last
  // transfer's (the pool does not reset handles), so it must not count.
  recording_peer peer(io_);
  std::optional<transport_result> out;
  {
    curl_transport t(io_.get_executor());
    ASSERT_FALSE(send(t, request("POST", peer.url(), {}, "sent")).ec);
    t.async_send(request("POST", peer.url(), {}, "never"),
                 [&](transport_result r) { out = std::move(r); });
  }
  ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
  EXPECT_EQ(out->failure, transport_failure::not_sent);
}

TEST_F(curl_transport_reuse_test, SixtyFourInFlightKeepTheirConnections) {
  // With a cache bounded below the transfers in flight, curl closed a connection on nearly
  // every completion and the next request opened a new one.
  recording_peer peer(io_);
  curl_transport t(io_.get_executor());  // default options
  constexpr int window = 64;
  constexpr int total = window * 8;
  int started = 0;
  int done = 0;
  int failed = 0;
  std::function<void()> start = [&] {
    ++started;
    t.async_send(request("POST", peer.url(), {}, "x"), [&](transport_result r) {
      ++done;
      if (r.ec || r.response.status != 200) ++failed;
      if (started < total) start();
    });
  };
  for (int i = 0; i < window; ++i)
    start();
  ASSERT_TRUE(run_until(io_, [&] { return done == total; }));
  EXPECT_EQ(failed, 0);
  // One connection per transfer in flight, then reused: never one per request.
  EXPECT_LE(peer.seen().accepted, window + 16) << "of " << total << " requests";
}

}  // namespace
}  // namespace idem
