#pragma once
// Why an intent did not succeed, in words a person can act on: what idem-cli prints on stderr
// for every outcome other than succeeded, and in submit's JSON as "error".

#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>

#include "idem/outcome.hpp"

namespace idem::cli {

/// "HTTP 409 Conflict" (the RFC 9110 reason phrase; just "HTTP 599" for a status without one).
[[nodiscard]] std::string http_status_words(int status);

/// A transport error in words: the transport's own message, with a hint for TLS failures
/// (--cacert) and "cancelled" for a cancellation.
[[nodiscard]] std::string transport_error_words(std::error_code ec);

/// The first `max` characters of `body` on one line (line breaks and tabs become blanks),
/// with "..." when it was cut.
[[nodiscard]] std::string body_start(std::string_view body, std::size_t max = 200);

/// Why `o` did not succeed: its client-bug name if it has one (e.g. "idempotency-key-mismatch");
/// else the deciding answer ("HTTP 409 Conflict: " and the start of its body, unless
/// `with_body` is false), followed by the last transport error if there was one too; else the
/// last transport error, with `url` in parentheses when given (not for a cancellation); else
/// "no answer". "" for a success.
[[nodiscard]] std::string failure_words(const outcome& o, std::string_view url = {},
                                        bool with_body = true);

}  // namespace idem::cli
