// The full in-process server against hostile or broken clients: garbage bytes, oversized bodies
// and abandoned connections get an error or a close, never take the server down, and leave it
// answering everyone else.
#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <random>
#include <string>
#include <vector>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/integration.hpp"
#include "tests/support/http/problem_assertions.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {
namespace {

namespace asio = boost::asio;
using json = nlohmann::json;
using namespace std::chrono_literals;

// A plain TCP connection to the server, for requests no HTTP client would send.
class raw_connection {
 public:
  explicit raw_connection(asio::io_context& io, std::uint16_t port) : socket_(io) {
    socket_.connect({asio::ip::make_address("127.0.0.1"), port});
  }
  void write(std::string_view bytes) { asio::write(socket_, asio::buffer(bytes)); }
  // Closes with RST instead of FIN, as a crashed client's kernel would.
  void reset() {
    socket_.set_option(asio::ip::tcp::socket::linger(true, 0));
    socket_.close();
  }
  void close() { socket_.close(); }

 private:
  asio::ip::tcp::socket socket_;
};

// An error, a close, or an HTTP error status: anything but a success.
bool refused(const http_result& r) {
  return !r.ok() || r.res.status >= 400;
}

class Robustness : public ::testing::Test {
 protected:
  running_server server_;
  api_client api_{server_.port()};

  bool healthy() {
    api_client fresh{server_.port()};
    return fresh.raw().send("GET", "/healthz", {}, {}, 5s).res.status == 200;
  }
};

TEST_F(Robustness, RandomBinaryGarbageIsRefusedAndServerKeepsServing) {
  std::mt19937 rng{1234};
  std::string garbage(4096, '\0');
  for (auto& c : garbage)
    c = static_cast<char>(rng() & 0xFF);

  auto r = api_.raw().send_raw(garbage, 5s);
  EXPECT_TRUE(refused(r)) << r.res.status;
  EXPECT_TRUE(healthy());
}

TEST_F(Robustness, HalfARequestLineDoesNotBlockOtherClients) {
  asio::io_context io;
  raw_connection stuck{io, server_.port()};
  stuck.write("POST /v1/ord");

  EXPECT_TRUE(healthy());
  EXPECT_EQ(api_.post(orders, "k-1", order_body("m-1")).res.status, 201);
  stuck.close();
  EXPECT_TRUE(healthy());
}

TEST_F(Robustness, Http2PrefaceIsRefusedAndServerKeepsServing) {
  auto r = api_.raw().send_raw("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 5s);
  EXPECT_TRUE(refused(r)) << r.res.status;
  EXPECT_TRUE(healthy());
}

TEST_F(Robustness, HugeHeaderIsRefusedAndServerKeepsServing) {
  std::string request = "GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Big: ";
  request.append(256 * 1024, 'a');
  request += "\r\n\r\n";

  auto r = api_.raw().send_raw(request, 10s);
  EXPECT_TRUE(refused(r)) << r.res.status;
  if (r.ok()) {
    EXPECT_EQ(r.res.status, 431) << r.res.body;
  }
  EXPECT_TRUE(healthy());
}

TEST_F(Robustness, OversizedBodyWithContentLengthIsPayloadTooLarge) {
  auto body = order_body("m-big");
  body["customer_id"] = std::string(1024 * 1024, 'x');

  auto r = api_.post(orders, "k-big", body);
  EXPECT_TRUE(is_problem(r, 413, "payload-too-large"));
  EXPECT_TRUE(healthy());
  EXPECT_EQ(stat(api_, "idempotency_records"), 0);
}

TEST_F(Robustness, ChunkedBodyGrowingPast64KiBIsPayloadTooLarge) {
  std::string request =
      "POST /v1/orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer tenant-a\r\n"
      "Idempotency-Key: k-chunked\r\nContent-Type: application/json\r\n"
      "Transfer-Encoding: chunked\r\n\r\n";
  const std::string chunk(8192, ' ');
  for (int i = 0; i < 10; ++i)
    request += "2000\r\n" + chunk + "\r\n";  // 80 KiB in all
  request += "0\r\n\r\n";

  auto r = api_.raw().send_raw(request, 10s);
  EXPECT_TRUE(is_problem(r, 413, "payload-too-large"));
  EXPECT_TRUE(healthy());
  // Not stored: the key is still free for a proper request.
  EXPECT_EQ(api_.post(orders, "k-chunked", order_body("m-1")).res.status, 201);
}

TEST_F(Robustness, ManyConnectionsDroppedMidRequestDoNotStopTheServer) {
  asio::io_context io;
  const std::string partial =
      "POST /v1/orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer tenant-a\r\n"
      "Idempotency-Key: k-dropped\r\nContent-Type: application/json\r\n"
      "Content-Length: 200\r\n\r\n{\"merchant_order_id\":";
  std::vector<raw_connection> connections;
  connections.reserve(100);
  for (int i = 0; i < 100; ++i) {
    connections.emplace_back(io, server_.port());
    if (i % 3 != 0) connections.back().write(i % 3 == 1 ? partial : partial.substr(0, 20));
  }
  for (std::size_t i = 0; i < connections.size(); ++i) {
    if (i % 2 == 0) {
      connections[i].reset();
    } else {
      connections[i].close();
    }
  }

  EXPECT_TRUE(healthy());
  EXPECT_EQ(api_.post(orders, "k-dropped", order_body("m-1")).res.status, 201);
  EXPECT_EQ(stat(api_, "orders"), 1);
}

TEST_F(Robustness, UnknownRoutesAreNotFound) {
  const std::vector<std::pair<std::string, std::string>> unknown = {
      {"GET", "/v1/widgets"},
      {"POST", "/v1/widgets"},
      {"GET", "/nothing/here"},
      {"GET", "/v1/orders/o1/payments/p1"},
  };
  for (const auto& [method, target] : unknown) {
    auto r = api_.raw().send(method, target,
                             {{"Authorization", "Bearer tenant-a"}, {"Idempotency-Key", "k-1"}},
                             method == "POST" ? "{}" : "");
    EXPECT_TRUE(is_problem(r, 404, "not-found")) << method << ' ' << target;
  }
}

TEST_F(Robustness, ValidJsonThatIsNotAnObjectIsValidationFailed) {
  auto order_id = api_.create_order("m-1", "k-create");
  const std::vector<std::string> targets = {orders, orders + "/" + order_id + "/payments",
                                            orders + "/" + order_id + "/cancel"};
  for (const auto& target : targets) {
    for (const char* text : {"[]", "[1,2]", "42", "\"text\"", "null", "true"}) {
      auto r = api_.post(target, "k-not-object", json::parse(text));
      ASSERT_TRUE(is_problem(r, 400, "validation-failed")) << target << ' ' << text;
      auto errors = r.res.json().value("errors", json());
      EXPECT_TRUE(errors.is_array() && !errors.empty())
          << target << ' ' << text << ": " << r.res.body;
    }
  }
  // A validation failure does not hold the key.
  EXPECT_EQ(
      api_.post(orders + "/" + order_id + "/payments", "k-not-object", payment_body()).res.status,
      201);
}

}  // namespace
}  // namespace idem::kit
