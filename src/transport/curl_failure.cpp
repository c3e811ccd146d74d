#include "transport/curl_failure.hpp"

#include <cerrno>

#include "idem/transport_error.hpp"

namespace idem::detail {
namespace {

// The server's certificate was judged and refused, no certificate can be accepted with the
// trust anchors given, or our own certificate cannot be used: the next attempt would meet the
// same verdict.
bool is_certificate_rejection(CURLcode code) noexcept {
  switch (code) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
      return true;
    default:
      return false;
  }
}

bool is_tls_failure(CURLcode code) noexcept {
  switch (code) {
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_USE_SSL_FAILED:
      return true;
    default:
      return false;
  }
}

// Failures that curl reports only before it writes a request: resolving, connecting (TCP and
// TLS), a connect-phase timeout, or a request it cannot form at all. A timeout is on the list
// because it is also what a connect timeout looks like; whether the request had started decides.
bool happens_before_sending(CURLcode code) noexcept {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return true;
    default:
      return is_tls_failure(code) || is_certificate_rejection(code);
  }
}

std::error_code error_for(const curl_failure_facts& f) noexcept {
  // Our callbacks refuse bytes only for the size limit; curl reports that as a write error.
  if (f.too_large || f.code == CURLE_FILESIZE_EXCEEDED) return transport_errc::response_too_large;
  if (is_certificate_rejection(f.code)) return transport_errc::certificate_rejected;
  if (is_tls_failure(f.code)) return transport_errc::tls_failed;
  switch (f.code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_RESOLVE_PROXY:
      return transport_errc::resolve_failed;
    case CURLE_COULDNT_CONNECT:
      return f.os_errno == ECONNREFUSED ? transport_errc::connection_refused
                                        : transport_errc::connect_failed;
    case CURLE_OPERATION_TIMEDOUT:
      return transport_errc::timed_out;
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return transport_errc::connection_lost;
    case CURLE_WEIRD_SERVER_REPLY:
    case CURLE_BAD_CONTENT_ENCODING:
    case CURLE_HTTP3:
      return transport_errc::protocol_error;
    case CURLE_URL_MALFORMAT:
    case CURLE_UNSUPPORTED_PROTOCOL:
      return transport_errc::invalid_request;
    default:
      return {static_cast<int>(transport_errc::curl_error_base) + static_cast<int>(f.code),
              transport_category()};
  }
}

}  // namespace

failure_verdict classify_curl_failure(const curl_failure_facts& facts) noexcept {
  // The error code alone proves nothing: when a reused keep-alive connection dies under a
  // request, curl silently retries on a new connection, and a "connection refused" there
  // follows a request that may have reached the server on the old one. The pre-request callback
  // runs before every write of the request, so "it never ran" is the proof that nothing left.
  const bool never_started = !facts.request_started && facts.request_size == 0;
  return {error_for(facts), never_started && happens_before_sending(facts.code)
                                ? transport_failure::not_sent
                                : transport_failure::unknown};
}

transport_failure classify_abandoned(bool request_started, long request_size) noexcept {
  return !request_started && request_size == 0 ? transport_failure::not_sent
                                               : transport_failure::unknown;
}

}  // namespace idem::detail
