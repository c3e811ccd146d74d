#pragma once
// A small blocking HTTP/1.1 client for tests (Boost.Beast, synchronous), with one persistent
// connection, a per-request timeout, and access to raw bytes so tests can send garbage.

#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>

#include "mock_server/http/http_message.hpp"

namespace idem::kit {

struct http_response {
  int status = 0;
  mock::header_list headers;
  std::string body;
  /// First header with this name (case-insensitive).
  [[nodiscard]] std::optional<std::string> header(std::string_view name) const;
  /// The body parsed as JSON (throws on invalid JSON: a test failure).
  [[nodiscard]] nlohmann::json json() const;
};

/// `ec` is set when no complete response arrived: connection reset
/// (std::errc::connection_reset), closed before a response (boost::asio::error::eof mapped to
/// std::errc::connection_aborted), or timed out (std::errc::timed_out).
struct http_result {
  std::error_code ec;
  http_response res;
  [[nodiscard]] bool ok() const noexcept { return !ec; }
};

/// Not thread-safe. Reconnects on the next send when the server closed the connection.
class http_client {
 public:
  explicit http_client(std::uint16_t port, std::string host = "127.0.0.1");
  ~http_client();
  http_client(const http_client&) = delete;
  http_client& operator=(const http_client&) = delete;

  /// Sends one request on the persistent connection (opening it if needed) and reads one
  /// response. `Host`, `Content-Length` and (when the body is not empty and no Content-Type is
  /// given) `Content-Type: application/json` are added.
  http_result send(std::string_view method, std::string_view target,
                   const mock::header_list& headers = {}, std::string_view body = {},
                   std::chrono::milliseconds timeout = std::chrono::seconds(10));

  /// Opens a fresh connection, writes `bytes` verbatim, then reads one HTTP response (if any)
  /// until `timeout`. The connection is closed afterwards.
  http_result send_raw(std::string_view bytes,
                       std::chrono::milliseconds timeout = std::chrono::seconds(10));

  /// True when the persistent connection is open (the server has not closed it as far as the
  /// client has noticed).
  [[nodiscard]] bool connected() const;
  /// How many TCP connections this client has opened so far (to test keep-alive).
  [[nodiscard]] int connections_opened() const noexcept;
  void close();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace idem::kit
