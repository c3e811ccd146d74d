// Every request that leaves an attempt is one the client knows (contract section 8): when a
// kept-alive connection dies under a request, libcurl sends the request again on a fresh
// connection, inside one transfer, unless it is told not to. For a write that second send is an
// execution nobody counted, so the transport refuses it: the transfer ends `unknown`
// (connection_lost), and the client's own policy decides whether and when to send again.
// A GET may still be re-sent: it changes nothing. Against a loopback listener that closes a
// kept-alive connection under a chosen request, unanswered.

#include <gtest/gtest.h>

#include <atomic>
#include <boost/asio/io_context.hpp>

#include "idem/curl_transport.hpp"
#include "tests/idem/support/send_and_wait.hpp"
#include "tests/support/servers/recording_listener.hpp"

namespace idem {
namespace {

using namespace std::chrono_literals;
using test::send_and_wait;

http_request write_to(const std::string& url) {
  http_request r;
  r.method = "POST";
  r.url = url;
  r.timeout = 10s;
  r.headers = {{"Content-Type", "application/json"}, {"Idempotency-Key", "resend-test"}};
  r.body = request_body(std::string(R"({"n":1})"));
  return r;
}

// The second request of every connection dies with it, unanswered; every other one is 201.
kit::recording_listener second_request_dies() {
  return kit::recording_listener(
      [](const std::string&) { return kit::http_answer(201, R"({"id":"ord_1"})"); },
      {.close_unanswered = [](std::size_t on_connection, const std::string&) {
        return on_connection == 2;
      }});
}

TEST(CurlTransportResend, AWriteOnAKeptConnectionThatDiesIsNotSentAgainBehindTheCaller) {
  auto listener = second_request_dies();
  boost::asio::io_context io;
  curl_transport transport(io.get_executor());

  auto first = send_and_wait(io, transport, write_to(listener.url() + "/v1/orders"));
  ASSERT_EQ(first.failure, transport_failure::none);
  ASSERT_EQ(first.response.status, 201);

  // The same connection is reused, and dies under the request.
  auto second = send_and_wait(io, transport, write_to(listener.url() + "/v1/orders"));
  EXPECT_EQ(second.failure, transport_failure::unknown) << "it may have reached the server";
  EXPECT_EQ(second.ec, transport_errc::connection_lost) << second.ec.message();
  EXPECT_TRUE(second.reused_connection);
  EXPECT_EQ(listener.heads_starting("POST ").size(), 2u)
      << "the transport sent a write the caller never asked for";
}

TEST(CurlTransportResend, AGetOnAKeptConnectionThatDiesIsStillSentAgain) {
  auto listener = second_request_dies();
  boost::asio::io_context io;
  curl_transport transport(io.get_executor());

  ASSERT_EQ(send_and_wait(io, transport, test::get_request(listener.url() + "/v1/orders"))
                .response.status,
            201);
  auto second = send_and_wait(io, transport, test::get_request(listener.url() + "/v1/orders"));
  EXPECT_EQ(second.failure, transport_failure::none) << second.ec.message();
  EXPECT_EQ(second.response.status, 201);
  EXPECT_EQ(listener.heads_starting("GET ").size(), 3u);
}

}  // namespace
}  // namespace idem
