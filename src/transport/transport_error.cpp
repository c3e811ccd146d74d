#include "idem/transport_error.hpp"

#include <curl/curl.h>

namespace idem {
namespace {

constexpr int curl_base = static_cast<int>(transport_errc::curl_error_base);

class transport_category_impl final : public std::error_category {
 public:
  const char* name() const noexcept override { return "idem.transport"; }

  std::string message(int value) const override {
    if (value >= curl_base) {
      // curl_easy_strerror knows every code (and says "Unknown error" for what it does not).
      return std::string("curl: ") + curl_easy_strerror(static_cast<CURLcode>(value - curl_base));
    }
    switch (static_cast<transport_errc>(value)) {
      case transport_errc::resolve_failed:
        return "could not resolve the host name";
      case transport_errc::connection_refused:
        return "connection refused";
      case transport_errc::connect_failed:
        return "could not connect to the server";
      case transport_errc::tls_failed:
        return "the TLS handshake failed";
      case transport_errc::timed_out:
        return "the attempt timed out";
      case transport_errc::connection_lost:
        return "connection lost before a complete response";
      case transport_errc::response_too_large:
        return "response too large";
      case transport_errc::protocol_error:
        return "invalid HTTP response";
      case transport_errc::invalid_request:
        return "the request cannot be sent (malformed URL or unsupported scheme)";
      case transport_errc::certificate_rejected:
        return "a certificate was not accepted (the server's, or the client's own)";
      case transport_errc::connections_reset:
        return "the connections were dropped while the request was in flight";
      case transport_errc::curl_error_base:
        break;
    }
    return "unknown transport error";
  }

  // Lets callers test for the portable condition (`ec == std::errc::timed_out`) without knowing
  // this category.
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<transport_errc>(value)) {
      case transport_errc::connection_refused:
        return std::errc::connection_refused;
      case transport_errc::timed_out:
        return std::errc::timed_out;
      case transport_errc::invalid_request:
        return std::errc::invalid_argument;
      default:
        return {value, *this};
    }
  }
};

}  // namespace

const std::error_category& transport_category() noexcept {
  static const transport_category_impl category;
  return category;
}

}  // namespace idem
