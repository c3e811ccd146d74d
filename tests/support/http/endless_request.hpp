#pragma once
// A request whose bytes never end: a head, then the same bytes again and again until the server
// answers or a byte budget is spent. For proving that the server bounds what one request can make
// it read (an endless chunk extension, an endless trailer, chunk after tiny chunk), counted in
// bytes, never in time.

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace idem::kit {

struct endless_request {
  std::string head;    ///< written first: the request line, the header, any start of the body
  std::string filler;  ///< then written again and again (batched into larger writes)
  /// Give up, unanswered, once this many bytes are written.
  std::size_t give_up_after = 0;
  /// Called once on the caller's thread while the request is under way: once at least
  /// `meanwhile_after` bytes are written, if no answer has been seen by then. The writing waits
  /// for it, so the server holds a half-read request all the while.
  std::function<void()> meanwhile;
  std::size_t meanwhile_after = 0;
};

struct endless_request_result {
  /// Bytes written before the answer was seen (or before giving up). The server read at most
  /// this many; the ones it did not read are still in the kernel's socket buffers.
  std::size_t bytes_written = 0;
  bool answered = false;                                              ///< a whole response arrived
  boost::system::error_code error;                                    ///< when not answered
  boost::beast::http::response<boost::beast::http::string_body> res;  ///< when answered
  /// After the answer: eof when the server then closed the connection (timeout when it did not).
  boost::system::error_code after_answer;
  bool meanwhile_called = false;
};

/// Sends `request` on a new connection to 127.0.0.1:port, keeps writing until a response arrives
/// (reading it concurrently) or `give_up_after` bytes are out, then reports. Blocking; every
/// wait is bounded by raw_http_hang_bound. The client's send buffer is kept small, so that the
/// kernel's share of the bytes written is mostly the server's receive buffer.
[[nodiscard]] endless_request_result send_endless_request(std::uint16_t port,
                                                          const endless_request& request);

/// How many written bytes the kernel can hold on loopback that the server has not read: the
/// largest receive buffer the server's socket may grow to (net.ipv4.tcp_rmem), the client's
/// small send buffer, and a margin for the writes that were under way when the answer came.
[[nodiscard]] std::size_t loopback_buffering_bound();

}  // namespace idem::kit
