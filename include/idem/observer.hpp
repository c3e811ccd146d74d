#pragma once
/// @file
/// Hooks for metrics and tracing, and the client's counters. Events carry the intent's key (an
/// opaque random value, not a secret: it is in every request) but never bodies or credentials:
/// an observer may log everything it is given.

#include <chrono>
#include <cstdint>
#include <string_view>
#include <system_error>

#include "idem/classify.hpp"
#include "idem/outcome.hpp"

namespace idem {

/// Observer of a client's retry loops. Every hook has a no-op default. Called on the client's
/// strand; implementations shared by several clients must be thread-safe. Must not throw.
class observer {
 public:
  virtual ~observer() = default;
  /// A write attempt of intent `key` starts (`attempt` counts from 1 within this submission).
  virtual void on_attempt_started(std::string_view /*key*/, std::string_view /*method*/,
                                  std::string_view /*path*/, std::uint32_t /*attempt*/) {}
  /// It ended: its class, the HTTP status (0 if none) and, without a response, why
  /// (`transport_error`, a transport_errc or std::errc::operation_canceled).
  virtual void on_attempt_finished(std::string_view /*key*/, attempt_class /*c*/, int /*status*/,
                                   std::error_code /*transport_error*/) {}
  /// The loop waits `delay` before the next attempt (backoff, Retry-After or budget).
  virtual void on_backoff(std::string_view /*key*/, std::chrono::milliseconds /*delay*/) {}
  virtual void on_lookup_started(std::string_view /*key*/) {}
  /// `found`: our result was found by business ID.
  virtual void on_lookup_finished(std::string_view /*key*/, bool /*found*/) {}
  /// The lookup found `records` (more than one) records of this intent: the backend executed it
  /// more than once. The outcome is still succeeded, with outcome::matching_records().
  virtual void on_duplicates_found(std::string_view /*key*/, std::uint32_t /*records*/) {}
  virtual void on_outcome(std::string_view /*key*/, outcome_kind /*k*/,
                          std::chrono::milliseconds /*elapsed*/) {}
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
