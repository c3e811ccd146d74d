#pragma once
/// @file
/// The production transport: libcurl's multi_socket interface driven by Boost.Asio on the
/// client's executor (no threads, no curl_easy_perform), HTTP/1.1 keep-alive connection reuse,
/// HTTPS through OpenSSL with peer and host verification always on.

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "idem/transport.hpp"
#include "idem/transport_error.hpp"

namespace idem {

/// TLS settings. Verification of the server's certificate and host name is always on: there is
/// deliberately no option to turn it off. Empty paths mean the system's CA store.
struct tls_options {
  std::string ca_file;  ///< PEM bundle of trusted CAs (CURLOPT_CAINFO)
  std::string ca_path;  ///< directory of hashed CA certificates (CURLOPT_CAPATH)
};

struct curl_transport_options {
  tls_options tls;
  /// Responses larger than this fail the attempt (`failure = unknown`: the request was sent).
  std::size_t max_response_bytes = 1024 * 1024;
  /// Upper bound for the TCP + TLS connect phase (further trimmed by the request's timeout).
  std::chrono::milliseconds connect_timeout{5'000};
  /// Connections kept open for reuse.
  long max_idle_connections = 16;
  std::string user_agent = "idem/0.1";
};

/// Failures are reported with `transport_errc` codes (idem/transport_error.hpp). `not_sent` is
/// reported only when curl never started writing the request on any connection (its
/// pre-request callback never ran) and the failure is one of DNS, connect, connect timeout or
/// TLS handshake/verification; everything else, including a failure after curl's own silent
/// retry of a request whose reused connection died, is `unknown`.
///
/// Cancellation through the handler's associated slot: terminal cancellation always ends the
/// transfer (`std::errc::operation_canceled`, `failure` as above); partial and total
/// cancellation end it only while nothing was sent, and are ignored afterwards.
///
/// The first transport constructed calls `curl_global_init(CURL_GLOBAL_DEFAULT)` once for the
/// process (thread-safe, function-local static); curl_global_cleanup is never called.
///
/// Thread-safety: all operations must be initiated from the executor's thread (use a strand or
/// a single-threaded io_context); completion handlers run on their associated executors.
/// Destroying the transport completes every transfer in flight with
/// `std::errc::operation_canceled` (posted, never inline) and leaks nothing.
class curl_transport final : public transport {
 public:
  curl_transport(boost::asio::any_io_executor ex, curl_transport_options options = {});
  ~curl_transport() override;
  curl_transport(const curl_transport&) = delete;
  curl_transport& operator=(const curl_transport&) = delete;

  /// Transfers currently in flight.
  [[nodiscard]] std::size_t in_flight() const noexcept;

 protected:
  void send_impl(http_request req, boost::asio::any_completion_handler<signature> handler) override;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace idem
