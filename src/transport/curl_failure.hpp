#pragma once
// How a libcurl failure maps to the transport's error codes and to "not sent" vs "unknown"
// (contract section 8). Pure, so that the rules are tested without a network (private to the
// idem library).

#include <curl/curl.h>

#include <system_error>

#include "idem/classify.hpp"

namespace idem::detail {

/// What is known about an attempt when it ends without a response.
struct curl_failure_facts {
  CURLcode code = CURLE_OK;
  long os_errno = 0;  ///< CURLINFO_OS_ERRNO: tells "refused" from other connect failures
  /// CURLOPT_PREREQFUNCTION ran at least once: curl had a connection (new or reused) and was
  /// about to write the request to it.
  bool request_started = false;
  long request_size = 0;   ///< CURLINFO_REQUEST_SIZE: request bytes curl reports as sent
  bool too_large = false;  ///< our write or header callback refused more response bytes
};

struct failure_verdict {
  std::error_code ec;
  transport_failure failure = transport_failure::unknown;
};

/// The error code and class of a transfer that curl finished with `facts.code != CURLE_OK`.
/// `not_sent` only when the request provably never left: no request was ever started on any
/// connection AND the code is one of the failures that happen before sending (DNS, connect,
/// connect timeout, TLS handshake or certificate, a request curl cannot even form). Anything
/// else is `unknown`.
[[nodiscard]] failure_verdict classify_curl_failure(const curl_failure_facts& facts) noexcept;

/// The class of a transfer ended by us (cancellation, shutdown): `not_sent` only when no request
/// was ever started.
[[nodiscard]] transport_failure classify_abandoned(bool request_started,
                                                   long request_size) noexcept;

}  // namespace idem::detail
