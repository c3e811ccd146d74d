#pragma once
/// @file
/// Typed builders for the mock server's fault rules (contract section 6): one factory per fault
/// with its parameters, then where it applies and how often. `fault::to_json()` is the rule as
/// `PUT /_mock/faults` takes it; `fault_set` (fault_set.hpp) is a whole configuration.
///
///     using idem::kit::fault;
///     fault::drop_response_after_commit().on_create_order().probability(0.3).times(10);
///     fault::status_before_processing(503, std::chrono::seconds(1)).on_method("POST");

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace idem::kit {

/// The route templates of the mock server's writes, for `fault::on_route`.
namespace mock_routes {
inline constexpr std::string_view create_order = "/v1/orders";
inline constexpr std::string_view pay_order = "/v1/orders/{id}/payments";
inline constexpr std::string_view cancel_order = "/v1/orders/{id}/cancel";
}  // namespace mock_routes

/// The faults of contract section 6.
enum class fault_kind {
  reset_before_processing,     ///< on arrival: TCP reset, nothing processed
  status_before_processing,    ///< on arrival: 429/500/502/503/504, nothing processed
  delay,                       ///< on execution: holds the lease, waits, then processes
  crash_during_processing,     ///< on execution: provider called, record abandoned, reset
  provider_timeout,            ///< at the provider call: it charges, the server answers 504
  drop_response_after_commit,  ///< after the commit: reset, the response is lost
  status_after_commit,         ///< after the commit: 500/502/504 instead of the answer
  stall_after_commit,          ///< after the commit: the answer is held back
  /// on execution: the record is held PROCESSING (its lease lengthened to cover the hold), then
  /// processed; duplicates meet "in progress"
  hold_in_processing,
};

/// The fault's name on the wire, e.g. "drop_response_after_commit".
[[nodiscard]] std::string_view to_string(fault_kind kind) noexcept;

/// One fault rule. A value: every modifier returns a changed copy, so rules compose freely.
/// By default a rule matches every request (any method, any route), fires with probability 1
/// and without limit. The server checks the parameters (a status it does not allow, a
/// probability outside [0, 1]) and refuses the rule set with the reason
/// (`mock_admin::set_faults` returns mock_errc::refused naming the field).
class fault {
 public:
  /// TCP reset on arrival: the request was never processed.
  [[nodiscard]] static fault reset_before_processing();
  /// `status` (429, 500, 502, 503 or 504) on arrival, with `Retry-After: retry_after` if given;
  /// nothing processed.
  [[nodiscard]] static fault status_before_processing(
      int status = 503, std::optional<std::chrono::seconds> retry_after = std::nullopt);
  /// After claiming the key (duplicates meet PROCESSING), wait `by`, then process normally.
  [[nodiscard]] static fault delay(std::chrono::milliseconds by = std::chrono::seconds(1));
  /// Claim the key and call the provider, then abandon the record as a crashed executor would:
  /// no answer, a reset; the record is taken over once its lease runs out.
  [[nodiscard]] static fault crash_during_processing();
  /// The provider charges but its call times out: `504` with `Retry-After: 1`, the record left
  /// for the next attempt to settle by asking the provider.
  [[nodiscard]] static fault provider_timeout();
  /// Process and commit, then reset the connection: the response is lost.
  [[nodiscard]] static fault drop_response_after_commit();
  /// Process and commit, then answer `status` (500, 502 or 504) instead.
  [[nodiscard]] static fault status_after_commit(int status = 500);
  /// Process and commit, then hold the response back for `by`.
  [[nodiscard]] static fault stall_after_commit(
      std::chrono::milliseconds by = std::chrono::seconds(1));
  /// After claiming the key, keep the record PROCESSING for `hold`, then process normally. The
  /// server lengthens the record's lease by the hold, so a duplicate sent meanwhile always meets
  /// the first request running (`409 idempotency-request-in-progress` with `Retry-After`, or a
  /// wait with `Prefer: wait`), never an expired lease it would take over; that is what sets it
  /// apart from `delay`, a slow executor that can outlive its lease. For testing how an app
  /// handles "in progress".
  [[nodiscard]] static fault hold_in_processing(
      std::chrono::milliseconds hold = std::chrono::seconds(1));

  /// Only requests with this method (exact, e.g. "POST").
  [[nodiscard]] fault on_method(std::string method) const;
  /// Only requests to this route template (mock_routes) or concrete path.
  [[nodiscard]] fault on_route(std::string_view route) const;
  /// Only POST /v1/orders.
  [[nodiscard]] fault on_create_order() const;
  /// Only POST /v1/orders/{id}/payments (any order).
  [[nodiscard]] fault on_pay_order() const;
  /// Only POST /v1/orders/{id}/cancel (any order).
  [[nodiscard]] fault on_cancel_order() const;
  /// Fires with probability `p` (0 to 1), drawn from the rule set's seeded generator.
  [[nodiscard]] fault probability(double p) const;
  /// Fires at most `n` times.
  [[nodiscard]] fault times(std::int64_t n) const;

  [[nodiscard]] fault_kind kind() const noexcept { return kind_; }
  /// The rule as the admin API takes it, e.g. {"match": {"method": "POST", "route":
  /// "/v1/orders"}, "fault": "delay", "delay_ms": 1500, "probability": 0.5, "times": 3}.
  [[nodiscard]] nlohmann::json to_json() const;

 private:
  explicit fault(fault_kind kind, std::optional<std::chrono::milliseconds> delay = std::nullopt,
                 std::optional<int> status = std::nullopt,
                 std::optional<std::chrono::seconds> retry_after = std::nullopt)
      : kind_(kind), delay_(delay), status_(status), retry_after_(retry_after) {}

  fault_kind kind_;
  std::optional<std::string> method_;
  std::optional<std::string> route_;
  std::optional<double> probability_;
  std::optional<std::int64_t> times_;
  std::optional<std::chrono::milliseconds> delay_;
  std::optional<int> status_;
  std::optional<std::chrono::seconds> retry_after_;
};

}  // namespace idem::kit
