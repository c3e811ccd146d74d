#include "tests/support/http/endless_request.hpp"

#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/address_v4.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/socket_base.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <fstream>
#include <string_view>

#include "tests/support/http/raw_http_connection.hpp"

namespace idem::kit {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;

constexpr std::size_t client_send_buffer = 64 * 1024;
constexpr std::size_t batch_size = 16 * 1024;
// Bytes that may be written after the answer arrived and before the client saw it: the write
// under way then (at most one batch) and the send buffer it went into, with room to spare.
constexpr std::size_t late_write_margin = 1024 * 1024;
// When /proc does not say (not Linux): more than any default autotuning limit.
constexpr std::size_t unknown_receive_buffer = 64 * 1024 * 1024;

// One flood: a write loop and a read of the response, both on one io_context, each ending the
// other.
class flood {
 public:
  flood(std::uint16_t port, const endless_request& request)
      : request_(request), stream_(io_), batch_(make_batch(request.filler)) {
    stream_.socket().open(asio::ip::tcp::v4());
    stream_.socket().set_option(
        asio::socket_base::send_buffer_size(static_cast<int>(client_send_buffer)));
    stream_.expires_after(raw_http_hang_bound);
    boost::system::error_code ec;
    stream_.async_connect(asio::ip::tcp::endpoint(asio::ip::address_v4::loopback(), port),
                          [&](const boost::system::error_code& e) { ec = e; });
    io_.run();
    if (ec) throw boost::system::system_error(ec, "endless_request connect");
  }

  endless_request_result run() {
    io_.restart();
    stream_.expires_after(raw_http_hang_bound);
    parser_.body_limit(boost::none);
    http::async_read(stream_, buffer_, parser_,
                     [this](const boost::system::error_code& ec, std::size_t) { on_read(ec); });
    write(request_.head);
    io_.run();
    if (result_.answered) {
      result_.res = parser_.release();
      result_.after_answer = wait_for_close();
    }
    return std::move(result_);
  }

 private:
  static std::string make_batch(const std::string& filler) {
    std::string batch;
    if (filler.empty()) return batch;
    while (batch.size() < batch_size)
      batch += filler;
    return batch;
  }

  void write(std::string_view bytes) {
    asio::async_write(stream_, asio::buffer(bytes.data(), bytes.size()),
                      [this](const boost::system::error_code& ec, std::size_t n) {
                        result_.bytes_written += n;
                        on_written(ec);
                      });
  }

  void on_written(const boost::system::error_code& ec) {
    if (ec || reading_done_ || batch_.empty()) return;  // a failed write: the read tells why
    if (result_.bytes_written >= request_.give_up_after) {
      result_.error = asio::error::message_size;  // gave up: the server read on and on
      stream_.cancel();
      return;
    }
    if (request_.meanwhile && !result_.meanwhile_called &&
        result_.bytes_written >= request_.meanwhile_after) {
      result_.meanwhile_called = true;
      request_.meanwhile();
    }
    write(batch_);
  }

  void on_read(const boost::system::error_code& ec) {
    reading_done_ = true;
    if (!ec) {
      result_.answered = true;
      stream_.cancel();  // ends the write under way; the bytes it wrote are still counted
    } else if (!result_.error) {
      result_.error = ec;
    }
  }

  boost::system::error_code wait_for_close() {
    io_.restart();
    stream_.expires_after(raw_http_hang_bound);
    boost::system::error_code ec;
    std::array<char, 4096> sink{};
    while (!ec) {
      stream_.async_read_some(asio::buffer(sink),
                              [&](const boost::system::error_code& e, std::size_t) { ec = e; });
      io_.run();
      io_.restart();
    }
    return ec;
  }

  const endless_request& request_;
  asio::io_context io_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
  http::response_parser<http::string_body> parser_;
  std::string batch_;
  bool reading_done_ = false;
  endless_request_result result_;
};

std::size_t largest_receive_buffer() {
  std::ifstream in("/proc/sys/net/ipv4/tcp_rmem");
  std::size_t min = 0;
  std::size_t initial = 0;
  std::size_t max = 0;
  if (in >> min >> initial >> max && max > 0) return max;
  return unknown_receive_buffer;
}

}  // namespace

endless_request_result send_endless_request(std::uint16_t port, const endless_request& request) {
  return flood(port, request).run();
}

std::size_t loopback_buffering_bound() {
  // The kernel doubles a requested SO_SNDBUF for its bookkeeping.
  return largest_receive_buffer() + 2 * client_send_buffer + late_write_margin;
}

}  // namespace idem::kit
