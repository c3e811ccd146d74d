#include "tests/support/http/raw_http_connection.hpp"

#include <array>
#include <boost/asio/buffer.hpp>
#include <boost/asio/ip/address_v4.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/system/system_error.hpp>

namespace idem::kit {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

raw_http_connection::raw_http_connection(std::uint16_t port) : stream_(io_) {
  boost::system::error_code ec;
  stream_.expires_after(raw_http_hang_bound);
  stream_.async_connect(tcp::endpoint(asio::ip::address_v4::loopback(), port),
                        [&](const boost::system::error_code& e) { ec = e; });
  run();
  if (ec) throw boost::system::system_error(ec, "raw_http_connection connect");
}

boost::system::error_code raw_http_connection::write(std::string_view bytes) {
  boost::system::error_code ec;
  stream_.expires_after(raw_http_hang_bound);
  asio::async_write(stream_, asio::buffer(bytes.data(), bytes.size()),
                    [&](const boost::system::error_code& e, std::size_t) { ec = e; });
  run();
  return ec;
}

std::pair<boost::system::error_code, http::response<http::string_body>>
raw_http_connection::read_response(bool answers_head) {
  http::response_parser<http::string_body> parser;
  parser.skip(answers_head);
  boost::system::error_code ec;
  stream_.expires_after(raw_http_hang_bound);
  http::async_read(stream_, buffer_, parser,
                   [&](const boost::system::error_code& e, std::size_t) { ec = e; });
  run();
  return {ec, parser.release()};
}

boost::system::error_code raw_http_connection::wait_for_close() {
  stream_.expires_after(raw_http_hang_bound);
  for (;;) {
    boost::system::error_code ec;
    std::array<char, 4096> sink{};
    stream_.async_read_some(asio::buffer(sink),
                            [&](const boost::system::error_code& e, std::size_t) { ec = e; });
    run();
    if (ec) return ec;
  }
}

void raw_http_connection::run() {
  io_.restart();
  io_.run();
}

}  // namespace idem::kit
