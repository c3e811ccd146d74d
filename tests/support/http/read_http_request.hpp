#pragma once
// Reading one HTTP/1.1 request off a raw stream, for the tests' scripted loopback peers (plain
// TCP or TLS): its head up to the blank line, then its Content-Length body. Shared so that every
// peer frames requests the same way, and a kept-alive connection's next request starts where it
// should.

#include <boost/asio/awaitable.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/completion_condition.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <cstddef>
#include <string>

namespace idem::kit {

/// One request as it arrived on the wire.
struct raw_request {
  std::string head;  ///< request line and headers, through the blank line ("\r\n\r\n")
  std::string body;  ///< exactly Content-Length bytes ("" without that header)
};

/// Reads one request from `stream`. `buffer` holds bytes already read past the previous request
/// and keeps those read past this one: pass the same buffer for every request of a connection.
/// Throws boost::system::system_error when the peer goes away first.
template <class AsyncStream>
boost::asio::awaitable<raw_request> read_http_request(AsyncStream& stream, std::string& buffer) {
  namespace asio = boost::asio;
  const auto head_end = co_await asio::async_read_until(stream, asio::dynamic_buffer(buffer),
                                                        "\r\n\r\n", asio::use_awaitable);
  raw_request request{.head = buffer.substr(0, head_end), .body = {}};
  buffer.erase(0, head_end);
  std::size_t length = 0;
  if (auto at = request.head.find("Content-Length: "); at != std::string::npos) {
    length = std::stoul(request.head.substr(at + 16));
  }
  if (buffer.size() < length) {
    co_await asio::async_read(stream, asio::dynamic_buffer(buffer),
                              asio::transfer_exactly(length - buffer.size()), asio::use_awaitable);
  }
  request.body = buffer.substr(0, length);
  buffer.erase(0, length);
  co_return request;
}

}  // namespace idem::kit
