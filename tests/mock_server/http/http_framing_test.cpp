// Request framing at the mock server's edge (RFC 9112 sections 3.2, 6.1 and 6.3) over real
// sockets: a request whose body length cannot be known for certain is answered 400 (501 for a
// transfer coding the server does not implement) before anything else, authentication included,
// and the connection closes, so that its body bytes can never run as a request of their own
// ("request smuggling"). A request that does not say which host it is for, or says it twice, or
// carries two credentials, is refused the same way; an absolute-form target is served.
#include <gtest/gtest.h>

#include <boost/asio/error.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <string>
#include <string_view>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/raw_http_connection.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

// A whole create-order request: what a smuggler hides in the body of an innocent one.
std::string smuggled_create(std::string_view key) {
  const std::string body = order_body("smuggled-" + std::string(key)).dump();
  return "POST /v1/orders HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer tenant-a\r\n"
         "Idempotency-Key: " +
         std::string(key) +
         "\r\nContent-Type: application/json\r\nContent-Length: " + std::to_string(body.size()) +
         "\r\n\r\n" + body;
}

// A short read timeout bounds the lingering close after an error answer (the server reads and
// discards what the client still sends for at most that long), so each refusal closes quickly.
mock::server_options framing_test_options() {
  auto o = test_server_options();
  o.http.read_timeout = std::chrono::milliseconds(300);
  return o;
}

class HttpFraming : public ::testing::Test {
 protected:
  running_server server_{framing_test_options()};
  api_client api_{server_.port()};

  // Sends `bytes` on a fresh connection; returns the first answer's status and whether the
  // server then closed the connection (eof) rather than waiting for another request.
  struct exchange {
    unsigned status = 0;
    std::string body;
    bool closed = false;
  };
  exchange send(const std::string& bytes) {
    raw_http_connection conn(server_.port());
    EXPECT_FALSE(conn.write(bytes));
    auto [ec, res] = conn.read_response();
    exchange out;
    if (ec) {
      ADD_FAILURE() << "no answer: " << ec.message();
      return out;
    }
    out.status = res.result_int();
    out.body = res.body();
    out.closed = conn.wait_for_close() == boost::asio::error::eof;
    return out;
  }

  std::int64_t orders_created() { return stat(api_, "orders"); }
};

// The reproducer of the issue: a GET whose body (undeclared, framed by a coding that does not
// end in chunked) is a whole POST created an order every time.
TEST_F(HttpFraming, ATransferCodingThatDoesNotEndInChunkedIsRefusedAndItsBodyNeverRuns) {
  for (const std::string coding :
       {"gzip", "identity", "chunked, identity", "deflate", "x-custom", "chunked, gzip", ""}) {
    SCOPED_TRACE("Transfer-Encoding: " + coding);
    const auto r = send("GET /healthz HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: " + coding +
                        "\r\n\r\n" + smuggled_create("k-" + std::to_string(coding.size())));
    EXPECT_EQ(r.status, 400u) << r.body;
    EXPECT_NE(r.body.find("Transfer-Encoding"), std::string::npos) << r.body;
    EXPECT_TRUE(r.closed);
  }
  EXPECT_EQ(orders_created(), 0);
}

TEST_F(HttpFraming, AChunkedBodyUnderAnotherCodingIsNotImplementedAndCloses) {
  for (const std::string coding : {"gzip, chunked", "gzip,chunked", "identity, chunked"}) {
    SCOPED_TRACE(coding);
    const auto r = send(
        "POST /v1/orders HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer tenant-a\r\n"
        "Idempotency-Key: k-1\r\nContent-Type: application/json\r\n"
        "Transfer-Encoding: " +
        coding + "\r\n\r\n0\r\n\r\n" + smuggled_create("k-2"));
    EXPECT_EQ(r.status, 501u) << r.body;
    EXPECT_TRUE(r.closed);
  }
  EXPECT_EQ(orders_created(), 0);
}

// Two header lines whose list together ends in something other than chunked, and chunked twice.
TEST_F(HttpFraming, TransferEncodingSpreadOverTwoLinesIsReadAsOneList) {
  for (const std::string lines : {"Transfer-Encoding: chunked\r\nTransfer-Encoding: identity\r\n",
                                  "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n"}) {
    SCOPED_TRACE(lines);
    const auto r = send("GET /healthz HTTP/1.1\r\nHost: t\r\n" + lines + "\r\n0\r\n\r\n" +
                        smuggled_create("k-3"));
    EXPECT_EQ(r.status, 400u) << r.body;
    EXPECT_TRUE(r.closed);
  }
  EXPECT_EQ(orders_created(), 0);
}

// RFC 9112 section 6.1: an HTTP/1.0 message with Transfer-Encoding has faulty framing.
TEST_F(HttpFraming, Http10WithTransferEncodingIsRefusedAndCloses) {
  const auto r = send(
      "POST /v1/orders HTTP/1.0\r\nHost: t\r\nAuthorization: Bearer tenant-a\r\n"
      "Idempotency-Key: k-1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
      "0\r\n\r\n" +
      smuggled_create("k-2"));
  EXPECT_EQ(r.status, 400u) << r.body;
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(orders_created(), 0);
}

// Section 6.3: both headers "ought to be handled as an error"; either way the connection closes.
TEST_F(HttpFraming, TransferEncodingWithContentLengthIsRefusedAndCloses) {
  const std::string hidden = smuggled_create("k-2");
  const auto r = send(
      "POST /v1/orders HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer tenant-a\r\n"
      "Idempotency-Key: k-1\r\nContent-Type: application/json\r\n"
      "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
      hidden);
  EXPECT_EQ(r.status, 400u) << r.body;
  EXPECT_TRUE(r.closed);
  EXPECT_EQ(orders_created(), 0);
}

// Framing is checked before anything else: a request without credentials learns about its
// framing, not about its token, and one with a bad token the same.
TEST_F(HttpFraming, FramingIsAnsweredBeforeAuthentication) {
  for (const std::string auth : {"", "Authorization: Bearer nobody\r\n"}) {
    const auto r = send("POST /v1/orders HTTP/1.1\r\nHost: t\r\n" + auth +
                        "Transfer-Encoding: gzip\r\n\r\n" + smuggled_create("k-1"));
    EXPECT_EQ(r.status, 400u) << r.body;
    EXPECT_TRUE(r.closed);
  }
  EXPECT_EQ(orders_created(), 0);
}

// RFC 9112 section 3.2: an HTTP/1.1 request without Host, or with two, gets 400.
TEST_F(HttpFraming, AMissingOrRepeatedHostIsRefused) {
  const auto missing = send("GET /healthz HTTP/1.1\r\n\r\n");
  EXPECT_EQ(missing.status, 400u) << missing.body;
  EXPECT_NE(missing.body.find("Host"), std::string::npos) << missing.body;
  EXPECT_TRUE(missing.closed);
  const auto twice = send("GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n");
  EXPECT_EQ(twice.status, 400u) << twice.body;
  EXPECT_TRUE(twice.closed);
  // HTTP/1.0 needs no Host.
  const auto old = send("GET /healthz HTTP/1.0\r\n\r\n");
  EXPECT_EQ(old.status, 200u) << old.body;
}

// Two credentials: the server must not pick one of them.
TEST_F(HttpFraming, TwoAuthorizationHeadersAreRefusedWhicheverComesFirst) {
  for (const std::string pair : {"Authorization: Bearer tenant-a\r\nAuthorization: Bearer x\r\n",
                                 "Authorization: Bearer x\r\nAuthorization: Bearer tenant-a\r\n"}) {
    const std::string body = order_body("m-1").dump();
    const auto r = send("POST /v1/orders HTTP/1.1\r\nHost: t\r\n" + pair +
                        "Idempotency-Key: k-1\r\nContent-Type: application/json\r\n"
                        "Content-Length: " +
                        std::to_string(body.size()) + "\r\n\r\n" + body);
    EXPECT_EQ(r.status, 400u) << r.body;
    EXPECT_NE(r.body.find("Authorization"), std::string::npos) << r.body;
  }
  EXPECT_EQ(orders_created(), 0);
}

// RFC 9112 section 3.2.2: a server must accept the absolute form.
TEST_F(HttpFraming, AnAbsoluteFormTargetIsServedLikeItsPath) {
  const std::string authority = "127.0.0.1:" + std::to_string(server_.port());
  const auto health = send("GET http://" + authority + "/healthz HTTP/1.1\r\nHost: " + authority +
                           "\r\nConnection: close\r\n\r\n");
  EXPECT_EQ(health.status, 200u) << health.body;
  const std::string body = order_body("m-abs").dump();
  const auto created =
      send("POST http://" + authority + "/v1/orders HTTP/1.1\r\nHost: " + authority +
           "\r\nAuthorization: Bearer tenant-a\r\nIdempotency-Key: k-abs\r\n"
           "Content-Type: application/json\r\nConnection: close\r\n"
           "Content-Length: " +
           std::to_string(body.size()) + "\r\n\r\n" + body);
  EXPECT_EQ(created.status, 201u) << created.body;
  EXPECT_EQ(orders_created(), 1);
}

// What stays allowed: chunked alone, in any letter case, and a pipelined second request.
TEST_F(HttpFraming, PlainChunkedStillWorksAndPipelinedRequestsStillRun) {
  const std::string body = order_body("m-1").dump();
  char size_line[32];
  std::snprintf(size_line, sizeof size_line, "%zx\r\n", body.size());
  raw_http_connection conn(server_.port());
  ASSERT_FALSE(
      conn.write("POST /v1/orders HTTP/1.1\r\nHost: t\r\nAuthorization: Bearer tenant-a\r\n"
                 "Idempotency-Key: k-1\r\nContent-Type: application/json\r\n"
                 "Transfer-Encoding: Chunked\r\n\r\n" +
                 std::string(size_line) + body + "\r\n0\r\n\r\n" +
                 "GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto [ec1, first] = conn.read_response();
  ASSERT_FALSE(ec1) << ec1.message();
  EXPECT_EQ(first.result_int(), 201u) << first.body();
  auto [ec2, second] = conn.read_response();
  ASSERT_FALSE(ec2) << ec2.message();
  EXPECT_EQ(second.result_int(), 200u);
  EXPECT_EQ(orders_created(), 1);
}

}  // namespace
}  // namespace idem::kit
