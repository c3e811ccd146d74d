#pragma once
/// @file
/// Hooks for metrics and tracing, and the client's counters. Events carry the intent's key (an
/// opaque random value, not a secret: it is in every request) and its business id, but never
/// bodies or credentials: an observer may log everything it is given.
///
/// Each event is a small struct (namespace idem::trace) whose views live for the call only: copy
/// what you keep. The events nest as a tracer's spans do, and docs/SDK.md ("Tracing") names the
/// span and attribute names the example in examples/example_tracing.cpp maps them to:
///
///     intent_started
///       ├ attempt_started … attempt_finished   (one per write; a duration each)
///       ├ wait                                  (backoff, Retry-After, budget, poll, lookup…)
///       ├ poll_started … poll_finished          (the status URL after a 202)
///       └ lookup_started … lookup_finished      (one per GET by business id)
///     intent_finished

#include <chrono>
#include <cstdint>
#include <string_view>
#include <system_error>

#include "idem/classify.hpp"
#include "idem/lookup_verdict.hpp"
#include "idem/outcome.hpp"

namespace idem {

namespace trace {

/// What every event names: the intent's key and, when the intent has a lookup, the business id
/// the lookup asks for (empty otherwise).
struct intent_ids {
  std::string_view key;
  std::string_view business_id;
};

/// A submission starts (a new intent, or one resumed from a store).
struct intent_started {
  intent_ids ids;
  std::string_view method;
  std::string_view path;
  std::uint32_t earlier_attempts = 0;  ///< attempts of earlier submissions (resume), 0 if new
};

/// A write attempt starts: `attempt` counts from 1 within this submission.
struct attempt_started {
  intent_ids ids;
  std::string_view method;
  std::string_view path;
  std::uint32_t attempt = 0;
};

/// It ended: its class, the HTTP status (0 if none), whether the answer was a replay and,
/// without a response, why (a transport_errc or std::errc::operation_canceled).
struct attempt_finished {
  intent_ids ids;
  std::uint32_t attempt = 0;
  attempt_class cls = attempt_class::unknown;
  int status = 0;
  bool replayed = false;
  std::error_code transport_error{};
  std::chrono::microseconds duration{0};
};

/// Why a flight waits before its next request.
enum class wait_reason : std::uint8_t {
  backoff,         ///< jittered exponential backoff between write attempts
  retry_after,     ///< the server's Retry-After, longer than the backoff drawn
  retry_budget,    ///< the client-wide retry budget is empty: waiting for a token
  poll_interval,   ///< between polls of a 202's status URL (the write is in progress)
  lookup_backoff,  ///< between lookup requests (the last gave no usable answer)
  resume_spread,   ///< spread after the app's return to the foreground or online
};
[[nodiscard]] std::string_view to_string(wait_reason r) noexcept;

/// The flight waits `delay` before its next request.
struct wait {
  intent_ids ids;
  wait_reason reason = wait_reason::backoff;
  std::chrono::milliseconds delay{0};
};

/// A GET of the status URL a 202 named starts, and ends (`status` 0 without a response).
struct poll_started {
  intent_ids ids;
};
struct poll_finished {
  intent_ids ids;
  int status = 0;
  std::error_code transport_error{};
  std::chrono::microseconds duration{0};
};

/// Why a lookup runs.
enum class lookup_cause : std::uint8_t {
  writes_ended,          ///< writes are over (budget, deadline) with the outcome unknown
  key_retention_passed,  ///< before a re-send under a key the server may have forgotten
};
[[nodiscard]] std::string_view to_string(lookup_cause c) noexcept;

/// A lookup request (a GET by business id) starts: `request` counts from 1 within this lookup.
struct lookup_started {
  intent_ids ids;
  lookup_cause cause = lookup_cause::writes_ended;
  std::uint32_t request = 0;
};

/// It ended with the verdict on its answer (lookup_verdict::retry: no usable answer, another
/// request may follow). `records`: how many records of the answer are ours (above 1: the backend
/// executed the intent more than once; the outcome says so too).
struct lookup_finished {
  intent_ids ids;
  std::uint32_t request = 0;
  lookup_verdict verdict = lookup_verdict::retry;
  int status = 0;
  std::uint32_t records = 0;
  std::error_code transport_error{};
  std::chrono::microseconds duration{0};
};

/// The submission ended with this outcome (also told to the caller).
struct intent_finished {
  intent_ids ids;
  outcome_kind kind = outcome_kind::unresolved;
  std::error_code reason{};  ///< outcome::reason()
  int status = 0;
  std::uint32_t attempts = 0;
  std::chrono::milliseconds elapsed{0};
};

}  // namespace trace

/// Observer of a client's retry loops. Every hook has a no-op default. Called on the client's
/// strand, in the order the flight does things; implementations shared by several clients must
/// be thread-safe. Must not throw and should not block (the strand runs every flight).
class observer {
 public:
  virtual ~observer() = default;
  virtual void on_intent_started(const trace::intent_started& /*e*/) {}
  virtual void on_attempt_started(const trace::attempt_started& /*e*/) {}
  virtual void on_attempt_finished(const trace::attempt_finished& /*e*/) {}
  virtual void on_wait(const trace::wait& /*e*/) {}
  virtual void on_poll_started(const trace::poll_started& /*e*/) {}
  virtual void on_poll_finished(const trace::poll_finished& /*e*/) {}
  virtual void on_lookup_started(const trace::lookup_started& /*e*/) {}
  virtual void on_lookup_finished(const trace::lookup_finished& /*e*/) {}
  virtual void on_intent_finished(const trace::intent_finished& /*e*/) {}
};

/// A snapshot of a client's counters.
struct client_counters {
  std::uint64_t attempts = 0;  ///< writes sent
  std::uint64_t retries = 0;   ///< writes beyond each submission's first
  std::uint64_t lookups = 0;   ///< lookup requests sent
  std::uint64_t succeeded = 0;
  std::uint64_t rejected = 0;
  std::uint64_t not_sent = 0;
  std::uint64_t unresolved = 0;
  std::uint64_t recovered_by_lookup = 0;
};

}  // namespace idem
