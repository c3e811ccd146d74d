#pragma once
/// @file
/// The result of submitting one intent: a closed set of four kinds. Nothing that might have
/// happened is ever reported as failed: what cannot be settled is `unresolved`, with its key kept.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <iosfwd>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>

#include "idem/errc.hpp"
#include "idem/http_headers.hpp"

namespace idem {

/// What became of an intent.
enum class outcome_kind {
  succeeded,   ///< a 2xx (first answer or replay), or our result found by the lookup
  rejected,    ///< a definite failure (4xx) or a client bug (see outcome::error()); a fix is a new
               ///< intent
  not_sent,    ///< every attempt of every submission of this intent provably never reached the
               ///< server (as far as the intent store knows): nothing happened
  unresolved,  ///< it may have happened; resume later with the same key
};

[[nodiscard]] std::string_view to_string(outcome_kind k) noexcept;

/// The facts an outcome is built from (an aggregate, so the client fills it by name).
struct outcome_fields {
  outcome_kind kind = outcome_kind::unresolved;
  int status = 0;              ///< status of the answer that decided it; 0 if none
  std::string body{};          ///< body of that answer
  std::string problem_type{};  ///< problem+json `type` of that answer, if any
  header_list headers{};       ///< headers of that answer (request id, Location...)
  bool recovered_by_lookup = false;
  /// Found by the lookup: how many records of ours it found. More than one means the backend
  /// executed the intent more than once (never silent: the observer and idem-cli say so too).
  std::uint32_t matching_records = 0;
  bool replayed = false;       ///< the server answered `Idempotent-Replayed: true`
  std::uint32_t attempts = 0;  ///< writes sent (POSTs started), lookups and polls excluded
  std::string key{};           ///< the intent's idempotency key
  std::chrono::milliseconds elapsed{0};
  /// A client bug, e.g. "idempotency-key-mismatch", or "duplicate-business-id" when the lookup
  /// proved that another intent owns the business ID; empty otherwise.
  std::string error{};
  /// The writes' last transport failure (the lookup's is lookup_transport_error).
  std::error_code last_transport_error{};
  /// What the last request of the lookup by business ID got, when one was sent: its answer's
  /// status, or (0 then) its transport failure. reason() says how the lookup ended
  /// (errc::lookup_*), so an outcome can say what the lookup got apart from what the writes got.
  int lookup_status = 0;
  std::error_code lookup_transport_error{};
  /// Why it ended so (an `errc`), set where the outcome is decided; left empty, reason()
  /// derives it from the other fields.
  std::error_code reason{};
};

/// A value type, immutable once built: copies share its fields (one allocation when it is built,
/// none per copy), so handing it to several waiters or a store costs no copy of the answer's
/// body and headers.
/// Thread-safety: const members may be called concurrently, on copies too.
class outcome {
 public:
  /// An unresolved outcome with nothing known (the safe default: never "failed").
  outcome() = default;
  explicit outcome(outcome_fields fields)
      : f_(std::make_shared<const outcome_fields>(std::move(fields))) {}

  [[nodiscard]] outcome_kind kind() const noexcept { return f().kind; }
  /// The status of the deciding answer (for a lookup, the lookup's), 0 if none.
  [[nodiscard]] int status() const noexcept { return f().status; }
  [[nodiscard]] const std::string& body() const noexcept { return f().body; }
  [[nodiscard]] const std::string& problem_type() const noexcept { return f().problem_type; }
  /// Headers of the deciding answer (for a lookup, the lookup's); empty if none.
  [[nodiscard]] const header_list& headers() const noexcept { return f().headers; }
  /// The first header of the deciding answer named `name` (case-insensitive), or nullptr.
  [[nodiscard]] const std::string* header(std::string_view name) const noexcept {
    return find_header(f().headers, name);
  }
  [[nodiscard]] bool recovered_by_lookup() const noexcept { return f().recovered_by_lookup; }
  /// Records of ours the lookup found (0 unless recovered_by_lookup()); above 1: the backend
  /// executed this intent more than once.
  [[nodiscard]] std::uint32_t matching_records() const noexcept { return f().matching_records; }
  [[nodiscard]] bool replayed() const noexcept { return f().replayed; }
  /// Writes sent for this intent in this submission.
  [[nodiscard]] std::uint32_t attempts() const noexcept { return f().attempts; }
  [[nodiscard]] const std::string& key() const noexcept { return f().key; }
  [[nodiscard]] std::chrono::milliseconds elapsed() const noexcept { return f().elapsed; }
  /// The reason's name ("idempotency-key-mismatch", "duplicate-business-id",
  /// "foreign-credentials"...) for a client bug, a business verdict or a store failure; empty
  /// otherwise. One spelling per reason: `error() == to_string(errc)` of reason() when set.
  [[nodiscard]] const std::string& error() const noexcept { return f().error; }
  [[nodiscard]] std::error_code last_transport_error() const noexcept {
    return f().last_transport_error;
  }
  /// The status of the last answer to the lookup by business ID; 0 if no lookup was answered.
  [[nodiscard]] int lookup_status() const noexcept { return f().lookup_status; }
  /// The last transport failure of the lookup by business ID (the writes' are apart).
  [[nodiscard]] std::error_code lookup_transport_error() const noexcept {
    return f().lookup_transport_error;
  }
  [[nodiscard]] const outcome_fields& fields() const noexcept { return f(); }
  /// Why it ended as it did, an `errc` in the category "idem": empty for `succeeded` (except
  /// `errc::duplicates_found` when the lookup found our record more than once); never empty
  /// otherwise, zero attempts included. docs/SDK.md lists every value and when it happens.
  [[nodiscard]] std::error_code reason() const;
  /// Why it did not succeed, in words (what idem-cli prints after the kind): error() if set;
  /// else the deciding answer's status in words ("HTTP 409 Conflict") and the first
  /// `body_chars` characters of its body on one line (none for 0), then the last transport
  /// error if any; else the last transport error in words; else the reason's words. "" for a
  /// success, unless the backend executed it more than once.
  [[nodiscard]] std::string explain(std::size_t body_chars = 200) const;
  /// What the lookup got, in words, when it decided this outcome (reason() is one of the
  /// errc::lookup_* values); "" otherwise. The reason's words, then what its last request got
  /// and, when given, `url` (the lookup's, which the outcome does not keep), e.g. "the lookup
  /// found no record of it (HTTP 404 Not Found at https://api.example/v1/orders?...)" or "no
  /// lookup answered within the deadline (the attempt timed out)".
  [[nodiscard]] std::string explain_lookup(std::string_view url = {}) const;
  /// The outcome on one line: kind, status, attempts, reason and its words, e.g.
  /// "rejected, HTTP 409 Conflict, 1 attempt: duplicate-business-id: another intent owns this
  /// business ID" or "not_sent, 0 attempts: deadline-too-short: the deadline leaves no time
  /// for an attempt". For logs and people, not for parsing: test reason() instead.
  [[nodiscard]] std::string describe() const;

 private:
  [[nodiscard]] const outcome_fields& f() const noexcept { return f_ ? *f_ : unknown(); }
  [[nodiscard]] static const outcome_fields& unknown() noexcept;
  std::shared_ptr<const outcome_fields> f_;
};

/// Writes `o.describe()`.
std::ostream& operator<<(std::ostream& os, const outcome& o);

}  // namespace idem
