#pragma once
/// @file
/// Why an intent ended as it did: `outcome::reason()` is one of these, in the error category
/// named "idem". The transport's and the journal's own codes ("idem.transport", "idem.journal")
/// say what failed underneath; an `errc` says what that meant for the intent.

#include <string_view>
#include <system_error>
#include <type_traits>

namespace idem {

/// Every way an intent ends other than plain success (docs/SDK.md has the table). Each has one
/// name (to_string); `outcome::error()` is that name for the reasons that are an app's bug or a
/// business verdict (key, business ID, credentials, plan, journal), empty for the others.
enum class errc {
  // Nothing reached the server, or nothing came back: the transport's last failure.
  connection_refused = 1,  ///< the server host refused the connection (nothing listens there)
  dns_failed,              ///< the host name did not resolve
  connect_failed,          ///< the connection could not be opened (unreachable, no route)
  tls_failed,              ///< the TLS handshake failed or broke off
  certificate_rejected,    ///< TLS not trusted: the server's certificate is not trusted or not
                           ///< for this host, or the client's own certificate or key is unusable
  attempt_timed_out,       ///< the last attempt timed out (it may have been executed)
  connection_lost,         ///< the connection broke before a complete answer
  transport_failed,        ///< another transport failure (protocol error, answer too large...)
  invalid_request,         ///< the request cannot be sent as given (malformed URL, scheme)
  // The server answered, but never with a verdict, until the deadline or the attempt cap.
  server_error,          ///< the last answer was a 5xx, 408 or 3xx
  rate_limited,          ///< the last answer was a 429
  still_in_progress,     ///< the server was still executing it (409 in progress, 202 polling)
  deadline_too_short,    ///< the deadline left no time for any attempt (zero attempts)
  offline,               ///< the app said the network was down until the deadline passed
  cancelled,             ///< the app cancelled the submission, or the client shut down
  key_retention_passed,  ///< the key may be forgotten by the server and no lookup can check it
  // A verdict of the server: the intent will never succeed as it is (a fix is a new intent).
  rejected,                  ///< a definite 4xx (validation, payment declined, not found...)
  invalid_state,             ///< the resource is in a state that refuses it (e.g. paying a
                             ///< cancelled order): problem type invalid-state-transition
  duplicate_business_id,     ///< another intent owns this business ID (a 409, or the lookup)
  idempotency_key_mismatch,  ///< the key was used for another request (locally or a 422)
  idempotency_key_missing,   ///< the server says the request lacked the key
  idempotency_key_invalid,   ///< the server says the key is malformed
  idempotency_key_misuse,    ///< the server says the key was misused (bare 417, or a 400/422
                             ///< that names it)
  // The app's or the store's side.
  foreign_credentials,   ///< the key belongs to other credentials (a principal) than the client's
  unbound_plan,          ///< a planned intent submitted before planned_intent::bind()
  journal_write_failed,  ///< the intent store could not make the intent durable: nothing sent
  journal_unavailable,   ///< the journal could not be opened: the intent was not submitted
  abandoned,             ///< the store records the intent as abandoned: never sent again
  // The lookup by business ID, after writes that may have executed.
  lookup_found_nothing,  ///< the lookup found no record of ours (yet): it may still appear
  lookup_inconclusive,   ///< the lookup's answer proves nothing either way
  lookup_unanswered,     ///< no lookup answered within the deadline
  lookup_unusable,       ///< the lookup's URL names a value the payload lacks: never asked
  duplicates_found,      ///< succeeded, but the lookup found more than one record of ours: the
                         ///< backend executed the intent more than once (never silent)
  no_answer,             ///< nothing is known (a default-constructed outcome)
};

/// The category of `errc`, named "idem". Thread-safe, a singleton by the standard's design.
[[nodiscard]] const std::error_category& category() noexcept;

[[nodiscard]] inline std::error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), category()};
}

/// The reason's one spelling, e.g. "duplicate-business-id" (what `outcome::error()` says for
/// it); "" for a value that is not an `errc`.
[[nodiscard]] std::string_view to_string(errc e) noexcept;

}  // namespace idem

template <>
struct std::is_error_code_enum<idem::errc> : std::true_type {};
