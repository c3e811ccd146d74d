#pragma once
// A bare HTTP/1.1 connection for the front-end tests: exact bytes on one connection, responses
// read one by one (interim ones and answers to HEAD included), and waiting for the server to
// close. What tests/support/http/http_client.hpp hides on purpose.

#include <boost/asio/io_context.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <cstdint>
#include <string_view>
#include <utility>

namespace idem::kit {

/// Every wait of a raw_http_connection gives up after this long: it only turns a hang into a
/// failure, nothing is expected to take nearly this long.
inline constexpr std::chrono::milliseconds raw_http_hang_bound{10'000};

/// One TCP connection to 127.0.0.1. Blocking calls (each runs a private io_context). Not
/// thread-safe.
class raw_http_connection {
 public:
  /// Connects; throws boost::system::system_error when that fails.
  explicit raw_http_connection(std::uint16_t port);

  /// Writes all of `bytes`.
  boost::system::error_code write(std::string_view bytes);

  /// Reads one response, interim (1xx) ones included. `answers_head`: the response is to a HEAD
  /// request, so it ends after its header whatever its Content-Length says.
  std::pair<boost::system::error_code,
            boost::beast::http::response<boost::beast::http::string_body>>
  read_response(bool answers_head = false);

  /// Reads until the server closes the connection. Returns eof when it did, timeout when it did
  /// not within raw_http_hang_bound.
  boost::system::error_code wait_for_close();

 private:
  void run();

  boost::asio::io_context io_;
  boost::beast::tcp_stream stream_;
  boost::beast::flat_buffer buffer_;
};

}  // namespace idem::kit
