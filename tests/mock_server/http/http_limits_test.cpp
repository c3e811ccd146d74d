// What one client can make the mock server's HTTP front end hold and do: a request that never
// ends (an endless chunk extension or trailer, chunk after tiny chunk) is answered 413 and closed
// once it crossed the per-request limits, while other clients are served; and connections beyond
// max_connections are answered 503 at once. Everything is counted in bytes and connections,
// never in time.

#include <gtest/gtest.h>

#include <unistd.h>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/error.hpp>
#include <boost/beast/http/field.hpp>

#include <cstddef>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mock_server/command_line.hpp"
#include "mock_server/http/http_server.hpp"
#include "tests/mock_server/support/response_header.hpp"
#include "tests/support/http/endless_request.hpp"
#include "tests/support/http/http_client.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/http/raw_http_connection.hpp"
#include "tests/support/servers/in_process_http_server.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::mock {
namespace {

using test::header_of;

namespace asio = boost::asio;
namespace http = boost::beast::http;
using kit::endless_request;
using kit::raw_http_connection;

using idem::kit::problem_prefix;
constexpr std::string_view chunked_head =
    "POST /echo HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n";

// The most one request may make the server read: its header block, its body and its chunked
// framing (chunk-size lines, extensions, trailer), each at its limit.
std::size_t request_bytes_limit(const http_server_options& o) {
  return o.header_limit + o.body_limit + o.framing_limit;
}

std::string problem_type(const http::response<http::string_body>& res) {
  const auto body = nlohmann::json::parse(res.body(), nullptr, false);
  return body.is_object() ? body.value("type", "") : "";
}

class HttpLimitsTest : public ::testing::Test {
 protected:
  void start(http_server_options options) {
    options_ = options;
    server_.start(
        [](request req) -> asio::awaitable<reply> {
          response res;
          res.status = req.body_too_large ? 413 : 200;
          res.body = std::to_string(req.body.size());
          co_return reply{.res = std::move(res)};
        },
        options);
  }

  [[nodiscard]] std::uint16_t port() const { return server_.port(); }

  // A request that is served whole, on a connection of its own.
  void expect_served() {
    kit::http_client other(port());
    auto r = other.send("GET", "/echo");
    ASSERT_TRUE(r.ok()) << r.ec.message();
    EXPECT_EQ(r.res.status, 200);
  }

  http_server_options options_;
  kit::in_process_http_server server_;
};

struct endless_case {
  const char* name;
  std::string head;    // after the request's header block
  std::string filler;  // repeated for ever
  std::size_t body_limit = http_server_options{}.body_limit;
};

std::vector<endless_case> endless_cases() {
  const std::string one_chunk = "1\r\nx\r\n";
  return {
      {.name = "EndlessChunkExtension", .head = "1;a=", .filler = "b"},
      {.name = "EndlessChunkExtensionAfterChunks", .head = one_chunk + "1;a=b;c=", .filler = "d"},
      {.name = "EndlessChunkSizeOfZeros", .head = "1", .filler = "0"},
      {.name = "EndlessTrailerField", .head = one_chunk + "0\r\nX-Trailer: ", .filler = "v"},
      {.name = "EndlessTrailerOfManyFields",
       .head = one_chunk + "0\r\n",
       .filler = "X-Trailer: v\r\n"},
      // Each chunk is small, so the read buffer never fills: only counting the framing stops it
      // before the body limit does (here after a million chunks, about 100 MB).
      {.name = "ManyTinyChunksWithSmallExtensions",
       .head = "",
       .filler = "1;ext=" + std::string(80, 'e') + "\r\nx\r\n",
       .body_limit = 1024 * 1024},
  };
}

// Named in failure messages by its name, not as a dump of its bytes.
void PrintTo(const endless_case& c, std::ostream* os) {
  *os << c.name;
}

class EndlessRequestTest : public HttpLimitsTest,
                           public ::testing::WithParamInterface<endless_case> {};

TEST_P(EndlessRequestTest, IsAnswered413AndClosedAfterTheServerReadAtMostTheRequestLimit) {
  const auto& c = GetParam();
  start({.body_limit = c.body_limit});
  // The server may read at most the request limit and one more read (64 KiB) before it answers;
  // the rest of what was written can only be in the kernel's socket buffers. Beast alone reads on
  // until the body limit (here after about 100 MB), or for ever.
  const std::size_t bound = request_bytes_limit(options_) + 64 * 1024;
  endless_request request{
      .head = std::string(chunked_head) + c.head,
      .filler = c.filler,
      .give_up_after = bound + kit::loopback_buffering_bound(),
      .meanwhile = [&] { expect_served(); },
      .meanwhile_after = 8 * 1024,  // well inside every limit: before any answer
  };

  auto r = kit::send_endless_request(port(), request);

  EXPECT_TRUE(r.meanwhile_called);
  ASSERT_TRUE(r.answered) << "no answer after " << r.bytes_written
                          << " bytes written (the server read on and on): " << r.error.message();
  EXPECT_LE(r.bytes_written, request.give_up_after);
  EXPECT_EQ(r.res.result_int(), 413U);
  EXPECT_EQ(header_of(r.res, http::field::content_type), "application/problem+json");
  EXPECT_EQ(problem_type(r.res), std::string(problem_prefix) + "payload-too-large");
  EXPECT_EQ(header_of(r.res, http::field::connection), "close");
  EXPECT_EQ(r.after_answer, asio::error::eof) << r.after_answer.message();
  expect_served();
}

INSTANTIATE_TEST_SUITE_P(Requests, EndlessRequestTest, ::testing::ValuesIn(endless_cases()),
                         [](const auto& info) { return std::string(info.param.name); });

// Opens a connection, has one request served on it (so that the server surely counts it), then
// begins the next request's head: the connection is busy, so it keeps its slot (an idle one
// would give it up to a newcomer).
std::unique_ptr<raw_http_connection> held_connection(std::uint16_t port,
                                                     std::string_view target = "/echo") {
  auto conn = std::make_unique<raw_http_connection>(port);
  EXPECT_FALSE(conn->write("GET " + std::string(target) + " HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto [ec, res] = conn->read_response();
  EXPECT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 200U);
  EXPECT_FALSE(conn->write("GET /echo HTTP/1.1\r\n"));
  return conn;
}

// Ends the request a held connection began; `close`: asks the server to close after it.
void finish_held_request(raw_http_connection& conn, bool close) {
  ASSERT_FALSE(conn.write(close ? "Host: t\r\nConnection: close\r\n\r\n" : "Host: t\r\n\r\n"));
  auto [ec, res] = conn.read_response();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 200U);
}

void expect_refused_at_capacity(std::uint16_t port, std::string_view target = "/echo") {
  raw_http_connection extra(port);
  ASSERT_FALSE(extra.write("GET " + std::string(target) + " HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto [ec, res] = extra.read_response();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 503U);
  EXPECT_EQ(header_of(res, http::field::retry_after), "1");
  EXPECT_EQ(header_of(res, http::field::connection), "close");
  EXPECT_EQ(header_of(res, http::field::content_type), "application/problem+json");
  EXPECT_EQ(problem_type(res), std::string(problem_prefix) + "unavailable");
  EXPECT_EQ(extra.wait_for_close(), asio::error::eof);
}

unsigned status_on_new_connection(std::uint16_t port, std::string_view target) {
  raw_http_connection conn(port);
  EXPECT_FALSE(conn.write("GET " + std::string(target) + " HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto [ec, res] = conn.read_response();
  EXPECT_FALSE(ec) << ec.message();
  return ec ? 0 : res.result_int();
}

TEST_F(HttpLimitsTest, ConnectionBeyondTheCapGets503WithRetryAfterUntilOneCloses) {
  start({.max_connections = 2});
  auto first = held_connection(port());
  auto second = held_connection(port());

  expect_refused_at_capacity(port());
  // Refused connections take no slot: the cap still holds for the next one.
  expect_refused_at_capacity(port());

  // The first connection ends (the server closes it after this answer), freeing a slot.
  finish_held_request(*first, /*close=*/true);
  ASSERT_EQ(first->wait_for_close(), asio::error::eof);
  auto third = held_connection(port());

  // Still served: the connections that were in before the cap was reached.
  finish_held_request(*second, /*close=*/false);
  ASSERT_FALSE(second->write("GET /echo HTTP/1.1\r\n"));  // busy again
  expect_refused_at_capacity(port());
}

// One client holding every slot with idle keep-alive connections kept everyone else out until
// the idle timeout (60 s): the slot of the connection idle the longest now goes to the newcomer,
// and that connection is closed between requests, where a client expects it.
TEST_F(HttpLimitsTest, AnIdleKeepAliveConnectionGivesItsSlotToANewOne) {
  start({.max_connections = 2});
  auto oldest = held_connection(port());
  finish_held_request(*oldest, /*close=*/false);  // idle now, and the longest
  auto other = held_connection(port());
  finish_held_request(*other, /*close=*/false);

  EXPECT_EQ(status_on_new_connection(port(), "/echo"), 200U);
  EXPECT_EQ(oldest->wait_for_close(), asio::error::eof);
  // The other one is still served.
  ASSERT_FALSE(other->write("GET /echo HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto [ec, res] = other->read_response();
  ASSERT_FALSE(ec) << ec.message();
  EXPECT_EQ(res.result_int(), 200U);
}

// With every slot busy, health checks and the operator's paths are still answered, one request
// per connection on slots of their own; anything else is told 503.
TEST_F(HttpLimitsTest, AControlPathIsServedBeyondTheCapOnASlotOfItsOwn) {
  start({.max_connections = 1, .control_connections = 1, .control_paths = {"/healthz", "/_mock/"}});
  auto busy = held_connection(port());
  EXPECT_EQ(status_on_new_connection(port(), "/healthz"), 200U);
  EXPECT_EQ(status_on_new_connection(port(), "/_mock/stats"), 200U);
  expect_refused_at_capacity(port(), "/echo");
  expect_refused_at_capacity(port(), "/healthzz");
  // Control slots are taken one request at a time: a held one leaves none for the next.
  auto control = std::make_unique<raw_http_connection>(port());
  ASSERT_FALSE(control->write("GET /healthz HTTP/1.1\r\nHost: t\r\n\r\n"));
  auto [ec, res] = control->read_response();
  ASSERT_FALSE(ec);
  EXPECT_EQ(res.result_int(), 200U);
  EXPECT_EQ(control->wait_for_close(), asio::error::eof);  // served once, then closed
}

TEST(MaxConnectionsFlag, SetsTheCapAndIsInTheUsage) {
  auto parsed = parse_command_line({"--admin-token", "t", "--max-connections", "7"});
  ASSERT_TRUE(std::holds_alternative<command_line>(parsed)) << std::get<std::string>(parsed);
  EXPECT_EQ(std::get<command_line>(parsed).options.http.max_connections, 7U);
  EXPECT_NE(usage().find("--max-connections"), std::string::npos);

  for (const char* bad : {"0", "-1", "abc", "12x", ""}) {
    auto refused = parse_command_line({"--admin-token", "t", "--max-connections", bad});
    ASSERT_TRUE(std::holds_alternative<std::string>(refused)) << bad;
    EXPECT_NE(std::get<std::string>(refused).find("--max-connections"), std::string::npos);
  }
}

TEST(MaxConnectionsFlag, CapsTheServerProcess) {
  kit::server_process server({"--listen", "127.0.0.1:0", "--db", ":memory:", "--admin-token", "t",
                              "--max-connections", "1"});
  auto held = held_connection(server.port(), "/healthz");
  expect_refused_at_capacity(server.port(), "/v1/orders");
  // The server's own control paths still answer.
  EXPECT_EQ(status_on_new_connection(server.port(), "/healthz"), 200U);
}

// At RLIMIT_NOFILE 256 the default cap of 1024 connections was never reached: accept() failed
// with EMFILE first, a bystander's request hung unanswered in the backlog and stderr grew by ten
// lines a second. The server now fits its cap to the limit (and says so), and a bystander is
// answered: 503 for an order, 200 for a health check.
TEST(DescriptorLimit, TheCapComesBeforeEmfileAndABystanderIsAnswered) {
  const auto log = std::filesystem::temp_directory_path() /
                   ("idem-descriptor-limit-" + std::to_string(::getpid()) + ".log");
  std::filesystem::remove(log);
  {
    kit::server_process server(
        {"--listen", "127.0.0.1:0", "--db", ":memory:", "--admin-token", "t"}, log.string(),
        /*open_files=*/256);
    std::vector<std::unique_ptr<raw_http_connection>> flood;
    for (int i = 0; i < 300; ++i) {
      flood.push_back(std::make_unique<raw_http_connection>(server.port()));
      EXPECT_FALSE(flood.back()->write("GET /healthz HTTP/1.1\r\n"));  // a head never finished
    }
    EXPECT_EQ(status_on_new_connection(server.port(), "/v1/orders"), 503U);
    EXPECT_EQ(status_on_new_connection(server.port(), "/healthz"), 200U);
  }
  std::ifstream in(log);
  const std::string stderr_text{std::istreambuf_iterator<char>(in), {}};
  std::filesystem::remove(log);
  EXPECT_NE(stderr_text.find("max connections lowered: 1024 -> "), std::string::npos)
      << stderr_text;
  EXPECT_EQ(stderr_text.find("Too many open files"), std::string::npos) << stderr_text;
}

}  // namespace
}  // namespace idem::mock
