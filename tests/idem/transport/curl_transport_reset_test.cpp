// transport::reset_connections, what an app calls back from the background: every pooled
// connection is closed, every transfer in flight ends with `connections_reset` (not sent only if
// it provably never left), and the transport goes on as before on new connections. For
// idem::curl_transport against a loopback peer that counts the connections it accepted and saw
// closed, and for the test double idem::kit::fake_transport.

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/completion_condition.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idem/curl_transport.hpp"
#include "idem/testing/fake_transport.hpp"
#include "idem/transport_error.hpp"
#include "tests/idem/support/send_and_wait.hpp"
#include "tests/support/background_io.hpp"
#include "tests/support/http/read_http_request.hpp"

namespace idem {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace std::chrono_literals;

using test::get_request;
using test::hang_limit;
using test::run_until;

// An HTTP/1.1 peer on 127.0.0.1:0, run by a thread of its own so that the test's io_context holds
// the transport's work and nothing else. Answers every request with 200 and keeps the connection,
// except that a request for /hold is read and never answered. The first bytes of a TLS handshake
// (an https:// URL) are read and never answered either: the client stays in the handshake, with a
// connection open and nothing of its request written. Thread-safety: the counters may be read
// from any thread.
class loopback_peer {
 public:
  loopback_peer() : counts_(std::make_shared<counts>()) {
    auto acceptor = std::make_shared<tcp::acceptor>(
        bg_.io(), tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0});
    port_ = acceptor->local_endpoint().port();
    asio::co_spawn(bg_.io(), accept_loop(std::move(acceptor), counts_), asio::detached);
  }
  loopback_peer(const loopback_peer&) = delete;
  loopback_peer& operator=(const loopback_peer&) = delete;

  [[nodiscard]] std::string url(std::string_view target = "/ok") const {
    return "http://127.0.0.1:" + std::to_string(port_) + std::string(target);
  }
  [[nodiscard]] std::string https_url(std::string_view target = "/ok") const {
    return "https://127.0.0.1:" + std::to_string(port_) + std::string(target);
  }

  [[nodiscard]] int accepted() const noexcept { return counts_->accepted; }
  [[nodiscard]] int requests() const noexcept { return counts_->requests; }
  [[nodiscard]] int held() const noexcept { return counts_->held; }  ///< /hold requests read
  [[nodiscard]] int tls_hellos() const noexcept { return counts_->tls_hellos; }
  /// Connections whose client end was closed (end of stream or reset seen).
  [[nodiscard]] int closed() const noexcept { return counts_->closed; }

 private:
  struct counts {
    std::atomic<int> accepted{0};
    std::atomic<int> requests{0};
    std::atomic<int> held{0};
    std::atomic<int> tls_hellos{0};
    std::atomic<int> closed{0};
  };

  static asio::awaitable<void> accept_loop(std::shared_ptr<tcp::acceptor> acceptor,
                                           std::shared_ptr<counts> c) {
    for (;;) {
      auto socket = std::make_shared<tcp::socket>(co_await asio::this_coro::executor);
      boost::system::error_code ec;
      co_await acceptor->async_accept(*socket, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      ++c->accepted;
      asio::co_spawn(co_await asio::this_coro::executor, serve(socket, c), asio::detached);
    }
  }

  // Returns only by throwing, when the client closes its end.
  static asio::awaitable<void> read_until_closed(tcp::socket& socket) {
    char byte = 0;
    for (;;)
      co_await socket.async_read_some(asio::buffer(&byte, 1), asio::use_awaitable);
  }

  static asio::awaitable<void> serve(std::shared_ptr<tcp::socket> socket,
                                     std::shared_ptr<counts> c) {
    static constexpr std::string_view ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
    try {
      std::string buffer;
      co_await asio::async_read(*socket, asio::dynamic_buffer(buffer), asio::transfer_at_least(1),
                                asio::use_awaitable);
      if (buffer.front() == '\x16') {  // a TLS handshake record
        ++c->tls_hellos;
        co_await read_until_closed(*socket);
      }
      for (;;) {
        const auto request = co_await kit::read_http_request(*socket, buffer);
        ++c->requests;
        if (request.head.find(" /hold ") != std::string::npos) {
          ++c->held;
          co_await read_until_closed(*socket);
        }
        co_await asio::async_write(*socket, asio::buffer(ok), asio::use_awaitable);
      }
    } catch (const boost::system::system_error&) {
      ++c->closed;
    }
  }

  std::shared_ptr<counts> counts_;
  kit::background_io bg_;  // after counts_: stopped (its coroutines gone) before counts_ goes
  std::uint16_t port_ = 0;
};

// Runs what is ready now (poll() alone does nothing once the io_context ran out of work).
std::size_t poll_ready(asio::io_context& io) {
  io.restart();
  return io.poll();
}

// Connecting (the TLS handshake included) may take as long as the transfer itself: the reset,
// not curl's connect timeout, is what ends a transfer held in the handshake.
curl_transport_options patient_connect() {
  curl_transport_options o;
  o.connect_timeout = 10min;
  return o;
}

// A POST to the peer's /hold, whose timeout is far beyond what run_until waits: if it ends, the
// reset ended it.
http_request held_post(std::string url) {
  return {.method = "POST", .url = std::move(url), .headers = {}, .body = "{}", .timeout = 10min};
}

class curl_transport_reset_test : public ::testing::Test {
 protected:
  transport_result send(transport& t, http_request req) {
    return test::send_and_wait(io_, t, std::move(req));
  }

  asio::io_context io_;
};

TEST_F(curl_transport_reset_test, PooledConnectionIsClosedAndTheNextRequestOpensANewOne) {
  loopback_peer peer;
  curl_transport t(io_.get_executor());
  auto first = send(t, get_request(peer.url()));
  auto second = send(t, get_request(peer.url()));
  ASSERT_FALSE(first.ec) << first.ec.message();
  ASSERT_FALSE(second.ec) << second.ec.message();
  ASSERT_TRUE(second.reused_connection);
  ASSERT_EQ(peer.accepted(), 1);

  t.reset_connections();
  // Closed by the reset itself, not only left out of later requests.
  EXPECT_TRUE(run_until(io_, [&] { return peer.closed() >= 1; }))
      << peer.closed() << " of " << peer.accepted() << " connections closed";
  EXPECT_EQ(peer.closed(), 1);
  auto third = send(t, get_request(peer.url()));
  ASSERT_FALSE(third.ec) << third.ec.message();
  EXPECT_EQ(third.response.status, 200);
  EXPECT_FALSE(third.reused_connection);
  EXPECT_EQ(peer.accepted(), 2);
  // The new connection is kept alive as usual.
  auto fourth = send(t, get_request(peer.url()));
  ASSERT_FALSE(fourth.ec) << fourth.ec.message();
  EXPECT_TRUE(fourth.reused_connection);
  EXPECT_EQ(peer.accepted(), 2);
}

TEST_F(curl_transport_reset_test, TransferWhoseRequestLeftEndsAsConnectionsResetUnknown) {
  loopback_peer peer;
  asio::cancellation_signal signal;  // outlives the transport, which holds its slot
  int completions = 0;
  std::optional<transport_result> out;
  curl_transport t(io_.get_executor());
  t.async_send(held_post(peer.url("/hold")),
               asio::bind_cancellation_slot(signal.slot(), [&](transport_result r) {
                 ++completions;
                 out = std::move(r);
               }));
  ASSERT_TRUE(run_until(io_, [&] { return peer.held() == 1; }));

  t.reset_connections();
  EXPECT_FALSE(out.has_value()) << "completed inline";
  EXPECT_EQ(t.in_flight(), 0u);
  // Its own timeout is minutes away: only the reset can end it within run_until's bound.
  ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
  EXPECT_EQ(out->ec, transport_errc::connections_reset) << out->ec.message();
  EXPECT_EQ(out->failure, transport_failure::unknown);
  EXPECT_FALSE(out->reused_connection);
  EXPECT_TRUE(run_until(io_, [&] { return peer.closed() >= 1; }))
      << peer.closed() << " of " << peer.accepted() << " connections closed";
  EXPECT_EQ(peer.closed(), 1);
  // The caller's slot was let go: a late cancellation completes nothing a second time.
  signal.emit(asio::cancellation_type::terminal);
  poll_ready(io_);
  EXPECT_EQ(completions, 1);
}

// Connected, and in the TLS handshake (the peer holds the ClientHello): curl's pre-request
// callback has not run, so no byte of the request can have left.
TEST_F(curl_transport_reset_test, TransferStillInTheTlsHandshakeEndsAsConnectionsResetNotSent) {
  loopback_peer peer;
  curl_transport t(io_.get_executor(), patient_connect());
  std::optional<transport_result> out;
  t.async_send(held_post(peer.https_url("/hold")), [&](transport_result r) { out = std::move(r); });
  ASSERT_TRUE(run_until(io_, [&] { return peer.tls_hellos() == 1; }));
  ASSERT_FALSE(out.has_value()) << "ended before the reset: " << out->ec.message();

  t.reset_connections();
  EXPECT_FALSE(out.has_value()) << "completed inline";
  ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
  EXPECT_EQ(out->ec, transport_errc::connections_reset) << out->ec.message();
  EXPECT_EQ(out->failure, transport_failure::not_sent);
  EXPECT_TRUE(run_until(io_, [&] { return peer.closed() >= 1; }))
      << peer.closed() << " of " << peer.accepted() << " connections closed";
  EXPECT_EQ(peer.closed(), 1);
  EXPECT_EQ(peer.requests(), 0);
}

// Accepted, but curl has not looked at it yet (adding it only armed curl's timer).
TEST_F(curl_transport_reset_test, TransferNotStartedYetEndsAsConnectionsResetNotSent) {
  loopback_peer peer;
  curl_transport t(io_.get_executor());
  std::optional<transport_result> out;
  t.async_send(held_post(peer.url("/hold")), [&](transport_result r) { out = std::move(r); });
  t.reset_connections();
  EXPECT_EQ(t.in_flight(), 0u);
  ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
  EXPECT_EQ(out->ec, transport_errc::connections_reset) << out->ec.message();
  EXPECT_EQ(out->failure, transport_failure::not_sent);
}

TEST_F(curl_transport_reset_test, EveryTransferInFlightEndsOnceByWhatItSent) {
  loopback_peer peer;
  curl_transport t(io_.get_executor(), patient_connect());
  constexpr int n = 8;  // of each kind
  std::vector<std::optional<transport_result>> sent(n);
  std::vector<std::optional<transport_result>> connecting(n);
  int completions = 0;
  for (int i = 0; i < n; ++i) {
    t.async_send(held_post(peer.url("/hold")), [&, i](transport_result r) {
      ++completions;
      sent[i] = std::move(r);
    });
    t.async_send(held_post(peer.https_url("/hold")), [&, i](transport_result r) {
      ++completions;
      connecting[i] = std::move(r);
    });
  }
  ASSERT_TRUE(run_until(io_, [&] { return peer.held() == n && peer.tls_hellos() == n; }));
  EXPECT_EQ(t.in_flight(), static_cast<std::size_t>(2 * n));

  t.reset_connections();
  EXPECT_EQ(t.in_flight(), 0u);
  EXPECT_EQ(completions, 0) << "completed inline";
  ASSERT_TRUE(run_until(io_, [&] { return completions == 2 * n; }));
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(sent[i]->ec, transport_errc::connections_reset) << sent[i]->ec.message();
    EXPECT_EQ(sent[i]->failure, transport_failure::unknown);
    EXPECT_EQ(connecting[i]->ec, transport_errc::connections_reset) << connecting[i]->ec.message();
    EXPECT_EQ(connecting[i]->failure, transport_failure::not_sent);
  }
  EXPECT_TRUE(run_until(io_, [&] { return peer.closed() >= 2 * n; }))
      << peer.closed() << " of " << peer.accepted() << " connections closed";
  EXPECT_EQ(peer.closed(), 2 * n);
  poll_ready(io_);
  EXPECT_EQ(completions, 2 * n);
}

TEST_F(curl_transport_reset_test, ResetWithNothingInFlightOrPooledDoesNothing) {
  loopback_peer peer;
  curl_transport t(io_.get_executor());
  t.reset_connections();
  t.reset_connections();
  EXPECT_EQ(poll_ready(io_), 0u) << "a reset of an idle transport left work behind";
  auto r = send(t, get_request(peer.url()));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.status, 200);
}

TEST_F(curl_transport_reset_test, TwoResetsInARowEndEachTransferOnce) {
  loopback_peer peer;
  curl_transport t(io_.get_executor());
  ASSERT_FALSE(send(t, get_request(peer.url())).ec);  // a first connection, now pooled
  int completions = 0;
  std::optional<transport_result> out;
  t.async_send(held_post(peer.url("/hold")), [&](transport_result r) {
    ++completions;
    out = std::move(r);
  });
  ASSERT_TRUE(run_until(io_, [&] { return peer.held() == 1; }));

  t.reset_connections();
  t.reset_connections();
  ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
  EXPECT_EQ(out->ec, transport_errc::connections_reset) << out->ec.message();
  EXPECT_EQ(out->failure, transport_failure::unknown);
  // The held request went out on the pooled connection.
  EXPECT_TRUE(out->reused_connection);
  t.reset_connections();  // and once more, with nothing left at all
  poll_ready(io_);
  EXPECT_EQ(completions, 1);

  auto next = send(t, get_request(peer.url()));
  ASSERT_FALSE(next.ec) << next.ec.message();
  EXPECT_FALSE(next.reused_connection);
  EXPECT_EQ(peer.accepted(), 2);
}

// What was armed for the old connections and transfers (curl's timer, the transfers' deadline
// timer, socket waits) is gone: io_context::run() returns once the results are delivered.
TEST_F(curl_transport_reset_test, NothingWaitsForTheOldConnectionsAfterAReset) {
  loopback_peer peer;
  curl_transport t(io_.get_executor());
  // Two connections at once: one stays pooled while the held request below uses the other.
  int answered = 0;
  for (int i = 0; i < 2; ++i) {
    t.async_send(get_request(peer.url()), [&](transport_result r) {
      EXPECT_FALSE(r.ec) << r.ec.message();
      ++answered;
    });
  }
  ASSERT_TRUE(run_until(io_, [&] { return answered == 2; }));
  ASSERT_EQ(peer.accepted(), 2);
  std::optional<transport_result> out;
  t.async_send(held_post(peer.url("/hold")), [&](transport_result r) { out = std::move(r); });
  ASSERT_TRUE(run_until(io_, [&] { return peer.held() == 1; }));

  t.reset_connections();
  io_.restart();
  io_.run_for(hang_limit);  // returns early when no work is left
  EXPECT_TRUE(io_.stopped()) << "something still waits on behalf of the old connections";
  ASSERT_TRUE(out.has_value());
  EXPECT_EQ(out->ec, transport_errc::connections_reset) << out->ec.message();
  EXPECT_TRUE(run_until(io_, [&] { return peer.closed() >= 2; }))
      << peer.closed() << " of " << peer.accepted() << " connections closed";
  EXPECT_EQ(peer.closed(), 2);

  io_.restart();
  auto next = send(t, get_request(peer.url()));
  ASSERT_FALSE(next.ec) << next.ec.message();
  EXPECT_FALSE(next.reused_connection);
  EXPECT_EQ(peer.accepted(), 3);
}

TEST_F(curl_transport_reset_test, DestroyingRightAfterAResetCompletesEachTransferOnce) {
  loopback_peer peer;
  auto t = std::make_unique<curl_transport>(io_.get_executor());
  int completions = 0;
  std::optional<transport_result> out;
  t->async_send(held_post(peer.url("/hold")), [&](transport_result r) {
    ++completions;
    out = std::move(r);
  });
  ASSERT_TRUE(run_until(io_, [&] { return peer.held() == 1; }));
  t->reset_connections();
  t.reset();
  ASSERT_TRUE(run_until(io_, [&] { return out.has_value(); }));
  poll_ready(io_);
  EXPECT_EQ(completions, 1);
  EXPECT_EQ(out->ec, transport_errc::connections_reset) << out->ec.message();
  EXPECT_EQ(out->failure, transport_failure::unknown);
}

// --- the test double ---------------------------------------------------------------------------

TEST(fake_transport_reset, HangingTransfersEndAsConnectionsResetByWhatTheySent) {
  asio::io_context io;
  kit::fake_transport t(io.get_executor());
  t.respond([](const http_request& r) {
    return r.url.ends_with("/sent") ? kit::hang() : kit::hang_connecting();
  });
  asio::cancellation_signal signal;
  int completions = 0;
  std::optional<transport_result> sent;
  std::optional<transport_result> connecting;
  t.async_send(get_request("http://x/sent"),
               asio::bind_cancellation_slot(signal.slot(), [&](transport_result r) {
                 ++completions;
                 sent = std::move(r);
               }));
  t.async_send(get_request("http://x/connecting"), [&](transport_result r) {
    ++completions;
    connecting = std::move(r);
  });
  poll_ready(io);
  ASSERT_EQ(t.hanging(), 2u);

  t.reset_connections();
  EXPECT_EQ(t.hanging(), 0u);
  EXPECT_EQ(completions, 0) << "completed inline";
  poll_ready(io);
  ASSERT_TRUE(sent.has_value());
  ASSERT_TRUE(connecting.has_value());
  EXPECT_EQ(sent->ec, transport_errc::connections_reset);
  EXPECT_EQ(sent->failure, transport_failure::unknown);
  EXPECT_EQ(connecting->ec, transport_errc::connections_reset);
  EXPECT_EQ(connecting->failure, transport_failure::not_sent);
  signal.emit(asio::cancellation_type::terminal);  // let go of: completes nothing again
  poll_ready(io);
  EXPECT_EQ(completions, 2);
}

TEST(fake_transport_reset, ResetsAreCounted) {
  asio::io_context io;
  kit::fake_transport t(io.get_executor());
  EXPECT_EQ(t.resets(), 0u);
  t.reset_connections();  // nothing hanging: still a reset
  t.respond([](const http_request&) { return kit::hang(); });
  t.async_send(get_request("http://x/"), [](transport_result) {});
  poll_ready(io);
  t.reset_connections();
  EXPECT_EQ(t.resets(), 2u);
  EXPECT_EQ(poll_ready(io), 1u);  // the one hanging transfer's completion
}

}  // namespace
}  // namespace idem
