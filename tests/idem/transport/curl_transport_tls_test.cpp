// idem::curl_transport over HTTPS: certificate verification is always on. A CA and a server
// certificate are made at test time (OpenSSL 3), served by a small Asio TLS peer on 127.0.0.1
// (tests/idem/support/tls_test_pki.hpp).

#include <gtest/gtest.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <string>

#include "idem/curl_transport.hpp"
#include "idem/transport_error.hpp"
#include "tests/idem/support/send_and_wait.hpp"
#include "tests/idem/support/tls_test_pki.hpp"

namespace idem {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using test::tls::test_pki;
using test::tls::tls_peer;

class curl_transport_tls_test : public ::testing::Test {
 protected:
  transport_result send(transport& t, std::string url) {
    return test::send_and_wait(io_, t, test::get_request(std::move(url)));
  }

  static curl_transport_options trusting(std::string ca_file, std::string ca_path = {}) {
    curl_transport_options o;
    o.tls.ca_file = std::move(ca_file);
    o.tls.ca_path = std::move(ca_path);
    return o;
  }

  asio::io_context io_;
};

TEST_F(curl_transport_tls_test, AcceptedWhenTheCaFileTrustsTheServer) {
  test_pki pki("IP:127.0.0.1,DNS:localhost");
  tls_peer peer(io_, pki);
  curl_transport t(io_.get_executor(), trusting(pki.ca_file));
  auto r = send(t, peer.url());
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.failure, transport_failure::none);
  EXPECT_EQ(r.response.status, 200);
  EXPECT_EQ(r.response.body, "hello");
}

TEST_F(curl_transport_tls_test, AcceptedWhenTheCaPathTrustsTheServer) {
  test_pki pki("IP:127.0.0.1");
  tls_peer peer(io_, pki);
  curl_transport t(io_.get_executor(), trusting({}, pki.ca_path));
  auto r = send(t, peer.url());
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "hello");
}

TEST_F(curl_transport_tls_test, SecondRequestReusesTheTlsConnection) {
  test_pki pki("IP:127.0.0.1");
  tls_peer peer(io_, pki);
  curl_transport t(io_.get_executor(), trusting(pki.ca_file));
  auto first = send(t, peer.url());
  auto second = send(t, peer.url());
  ASSERT_FALSE(first.ec) << first.ec.message();
  ASSERT_FALSE(second.ec) << second.ec.message();
  EXPECT_FALSE(first.reused_connection);
  EXPECT_TRUE(second.reused_connection);
  EXPECT_EQ(peer.state().handshakes, 1);
}

TEST_F(curl_transport_tls_test, UnknownCaIsRefusedAsNotSent) {
  test_pki pki("IP:127.0.0.1");
  tls_peer peer(io_, pki);
  curl_transport t(io_.get_executor());  // the system's CAs do not know the test CA
  auto r = send(t, peer.url());
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::certificate_rejected) << r.ec.message();
  EXPECT_EQ(peer.state().requests, 0);
}

TEST_F(curl_transport_tls_test, WrongHostNameIsRefusedAsNotSent) {
  test_pki pki("DNS:api.example.org");  // valid chain, but not for 127.0.0.1
  tls_peer peer(io_, pki);
  curl_transport t(io_.get_executor(), trusting(pki.ca_file));
  auto r = send(t, peer.url());
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::certificate_rejected) << r.ec.message();
  EXPECT_EQ(peer.state().requests, 0);
}

TEST_F(curl_transport_tls_test, PlainHttpServerBehindHttpsUrlIsNotSent) {
  // A TLS client hello sent to a peer that answers garbage: the handshake fails before any
  // request could be written.
  tcp::acceptor acceptor(io_, {asio::ip::make_address("127.0.0.1"), 0});
  auto serve = [&]() -> asio::awaitable<void> {
    auto socket = co_await acceptor.async_accept(asio::use_awaitable);
    co_await asio::async_write(socket,
                               asio::buffer(std::string_view("HTTP/1.1 400 Bad Request\r\n\r\n")),
                               asio::use_awaitable);
    socket.close();
  };
  asio::co_spawn(io_, serve(), asio::detached);
  curl_transport t(io_.get_executor());
  auto r = send(t, "https://127.0.0.1:" + std::to_string(acceptor.local_endpoint().port()) + "/");
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::tls_failed) << r.ec.message();
}

}  // namespace
}  // namespace idem
