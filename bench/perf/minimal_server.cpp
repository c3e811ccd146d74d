// The smallest server idem's load path can be measured against: one thread, HTTP/1.1 keep-alive,
// every request answered 201 with a body and the headers of the mock server's create-order
// answer (an `id`, `Location`, `Idempotent-Replayed: false`), so that the client does its normal
// work on the answer and the client's own cost decides the throughput.
//
//   idem_minimal_server [--delay-ms N]    prints its port on stdout, listening on 127.0.0.1:0
//
// --delay-ms holds every answer back that long (on a timer, not the thread): what keeps
// thousands of requests in flight. Runs until killed.
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {

// What the mock server answers to a create (mock_server/orders/create_order_operation.cpp), with a
// fresh id per answer.
std::string order_body(std::uint64_t n) {
  return R"({"amount_minor":2000,"created_at":1764583200000,"currency":"EUR",)"
         R"("customer_id":"load-customer-1","id":"ord_)" +
         std::to_string(1'000'000'000 + n) +
         R"(","items":[{"quantity":2,"sku":"sku-1","unit_price_minor":1000}],)"
         R"("merchant_order_id":"load-run-1","payments":[],"status":"CREATED"})";
}

class session : public std::enable_shared_from_this<session> {
 public:
  session(tcp::socket socket, std::chrono::milliseconds delay, std::uint64_t& served)
      : socket_(std::move(socket)), timer_(socket_.get_executor()), delay_(delay), served_(served) {
    socket_.set_option(tcp::no_delay(true));
  }

  void read() {
    req_ = {};
    http::async_read(socket_, buffer_, req_,
                     [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                       if (!ec) self->answer();
                     });
  }

 private:
  void answer() {
    const std::uint64_t n = served_++;
    res_ = {http::status::created, 11};
    res_.set(http::field::content_type, "application/json");
    res_.set(http::field::location, "/v1/orders/ord_" + std::to_string(1'000'000'000 + n));
    res_.set("Idempotent-Replayed", "false");
    res_.body() = order_body(n);
    res_.keep_alive(req_.keep_alive());
    res_.prepare_payload();
    if (delay_.count() == 0) return write();
    timer_.expires_after(delay_);
    timer_.async_wait([self = shared_from_this()](boost::system::error_code) { self->write(); });
  }

  void write() {
    http::async_write(socket_, res_,
                      [self = shared_from_this()](boost::system::error_code ec, std::size_t) {
                        if (!ec && self->res_.keep_alive()) self->read();
                      });
  }

  tcp::socket socket_;
  asio::steady_timer timer_;
  std::chrono::milliseconds delay_;
  std::uint64_t& served_;
  boost::beast::flat_buffer buffer_;
  http::request<http::string_body> req_;
  http::response<http::string_body> res_;
};

void accept(tcp::acceptor& acceptor, std::chrono::milliseconds delay, std::uint64_t& served) {
  acceptor.async_accept(
      [&acceptor, delay, &served](boost::system::error_code ec, tcp::socket socket) {
        if (!ec) std::make_shared<session>(std::move(socket), delay, served)->read();
        accept(acceptor, delay, served);  // also after an error such as EMFILE: keep serving
      });
}

}  // namespace

int main(int argc, char** argv) {
  std::chrono::milliseconds delay{0};
  for (int i = 1; i + 1 < argc; i += 2) {
    if (std::string{argv[i]} == "--delay-ms")
      delay = std::chrono::milliseconds{std::stol(argv[i + 1])};
  }
  asio::io_context io{1};
  tcp::acceptor acceptor{io, {asio::ip::make_address("127.0.0.1"), 0}};
  std::uint64_t served = 0;
  accept(acceptor, delay, served);
  std::printf("%u\n", static_cast<unsigned>(acceptor.local_endpoint().port()));
  std::fflush(stdout);
  io.run();
}
