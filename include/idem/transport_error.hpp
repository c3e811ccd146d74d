#pragma once
/// @file
/// Error codes of HTTP transports: why an attempt produced no HTTP response. Whether the request
/// may have reached the server is not part of the code (a timeout can happen before or after
/// sending); `transport_result::failure` says that. Cancellation is reported as
/// `std::errc::operation_canceled`, not with a code of its own.

#include <string>
#include <system_error>
#include <type_traits>

namespace idem {

/// Why a transport attempt failed. Values from `curl_error_base` up carry a libcurl `CURLcode`
/// that has no name here (value = curl_error_base + CURLcode); their message is libcurl's text.
enum class transport_errc {
  resolve_failed = 1,    ///< the host name did not resolve (DNS)
  connection_refused,    ///< the server host refused the TCP connection; also equals
                         ///< `std::errc::connection_refused`
  connect_failed,        ///< the TCP connection could not be opened otherwise (e.g. unreachable)
  tls_failed,            ///< the TLS handshake failed or broke off (may heal: retried)
  timed_out,             ///< the attempt's timeout expired (connecting, sending or waiting for the
                         ///< answer); also equals `std::errc::timed_out`
  connection_lost,       ///< the connection was reset or closed before a complete response (this
                         ///< includes an empty reply and a truncated body)
  response_too_large,    ///< the response exceeded the transport's size limit
  protocol_error,        ///< the server's answer was not valid HTTP/1.1
  invalid_request,       ///< the request cannot be sent as given (malformed URL, unsupported
                         ///< scheme); also equals `std::errc::invalid_argument`
  certificate_rejected,  ///< a certificate was not accepted: the server's (not trusted, not
                         ///< for this host, pinned key mismatch), or the client's own
                         ///< (certificate or key unusable), or the trust anchors (CA file or
                         ///< directory) cannot be used. A retry would meet the same verdict, so a
                         ///< submission ends `not_sent` at once
  connections_reset,     ///< the app dropped every connection (transport::reset_connections,
                         ///< e.g. back from the background) while this transfer was in flight;
                         ///< the client sends it again under the same key
  curl_error_base = 1000,
};

/// The category of `transport_errc`, named "idem.transport". Thread-safe, a singleton by the
/// standard's design of error categories.
[[nodiscard]] const std::error_category& transport_category() noexcept;

[[nodiscard]] inline std::error_code make_error_code(transport_errc e) noexcept {
  return {static_cast<int>(e), transport_category()};
}

}  // namespace idem

template <>
struct std::is_error_code_enum<idem::transport_errc> : std::true_type {};
