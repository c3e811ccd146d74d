#pragma once
/// @file
/// Classification of one attempt (contract section 8): what came back decides whether the intent
/// is over, and whether the same key may be sent again.

#include <optional>
#include <string>
#include <string_view>

namespace idem {

/// What the transport says about an attempt that produced no HTTP response.
enum class transport_failure {
  none,      ///< a complete HTTP response arrived
  not_sent,  ///< provably never left: connection refused, DNS failure, connect timeout or TLS
             ///< handshake failure on a NEW connection
  unknown,   ///< may have reached the server: timeout after sending, reset, empty or truncated
             ///< reply, or any failure on a REUSED keep-alive connection
};

/// The facts of one attempt.
struct attempt_facts {
  transport_failure failure = transport_failure::none;
  int status = 0;            ///< HTTP status when failure == none
  std::string problem_type;  ///< problem+json `type` of the body, if any
};

/// The classes of the contract's table.
enum class attempt_class {
  succeeded,          ///< 2xx: done (202: poll the status URL)
  not_sent,           ///< nothing reached the server: retry, same key
  unknown,            ///< may have executed (transport failure after send, 5xx, 408, 3xx): retry
  not_processed,      ///< 429: retry after Retry-After
  in_progress,        ///< 409 idempotency-request-in-progress: wait, retry; uses up no attempt
  client_bug,         ///< 422 idempotency-key-mismatch: final, loud
  business_conflict,  ///< 409 duplicate-business-id: rejected, unless an earlier attempt of
                      ///< this intent may have executed, then settled by the lookup
  rejected,           ///< any other 4xx: final; a corrected request is a new intent
};

/// The problem name of a problem+json `type` URI: the last path segment of
/// `https://idem.example/problems/<name>` (any base), or the whole value when it has no '/'.
[[nodiscard]] std::string_view problem_name(std::string_view type_uri) noexcept;

/// Classifies one attempt by the IETF profile's table, given the parsed problem type (the client
/// itself classifies through its server_profile, which also reads bodies and headers). Pure; a
/// 409 is `business_conflict` only with `duplicate-business-id`, and any other 409 (or 425) is
/// `in_progress`: never a rejection, since the first request under the key may still be running;
/// a 422 is `client_bug` only with `idempotency-key-mismatch`, otherwise `rejected`.
[[nodiscard]] attempt_class classify(const attempt_facts& facts) noexcept;

/// True for the classes after which the same key is sent again.
[[nodiscard]] bool is_retryable(attempt_class c) noexcept;
/// True when the request may have executed on the server (so a later definite answer might be
/// about our own earlier attempt): `unknown`, `succeeded`, and `in_progress` (the server holds a
/// record under our key, so one of our attempts is executing).
[[nodiscard]] bool may_have_executed(attempt_class c) noexcept;

[[nodiscard]] std::string_view to_string(attempt_class c) noexcept;

}  // namespace idem
