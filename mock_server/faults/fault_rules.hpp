#pragma once
// Fault-injection rules of contract section 6: parsing from JSON and the seeded choice of which
// rule fires at which stage. Pure logic; the server acts on the chosen fault.

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <random>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace idem::mock {

enum class fault_kind {
  delay,                       // stage: execution
  reset_before_processing,     // stage: arrival
  status_before_processing,    // stage: arrival
  drop_response_after_commit,  // stage: after_commit
  status_after_commit,         // stage: after_commit
  stall_after_commit,          // stage: after_commit
  crash_during_processing,     // stage: execution
  provider_timeout,            // stage: provider
  hold_in_processing,          // stage: execution
};

/// Where in a request's life a fault can fire.
enum class fault_stage { arrival, execution, provider, after_commit };

[[nodiscard]] fault_stage stage_of(fault_kind kind) noexcept;
[[nodiscard]] std::string_view to_string(fault_kind kind) noexcept;

/// One rule. Parameters that a fault does not use are ignored.
struct fault_rule {
  std::optional<std::string> method;  ///< absent: any method
  std::optional<std::string> route;   ///< route template or concrete path; absent: any
  fault_kind fault = fault_kind::delay;
  double probability = 1.0;           ///< 0..1
  std::optional<std::int64_t> times;  ///< absent: unlimited
  /// `delay_ms`: how long delay and hold_in_processing wait, how long stall_after_commit stalls
  std::chrono::milliseconds delay{1000};
  int status = 503;                  ///< for status_* faults
  std::optional<int> retry_after_s;  ///< for status_before_processing
};

/// A complete rule set as PUT to /_mock/faults: `{"seed": 42, "rules": [...]}`.
struct fault_config {
  std::uint64_t seed = 0;
  std::vector<fault_rule> rules;
};

/// Parses a fault configuration. Returns the config or a human-readable error naming the bad
/// field, e.g. "rules[1].fault: unknown fault 'explode'". Rules: `seed` optional non-negative
/// integer (default 0); `rules` required array; each rule needs `fault` (one of the names in
/// `fault_kind`); `match` optional object with optional string `method` and `route`;
/// `probability` number in [0,1] (default 1); `times` integer >= 0 (default unlimited);
/// `delay_ms` integer from 0 to 86400000, a day (default 1000); `status` for
/// status_before_processing must be one of 429, 500, 502, 503, 504 (default 503) and for
/// status_after_commit one of 500, 502, 504 (default 500); `retry_after_s` integer >= 0 (optional).
[[nodiscard]] std::variant<fault_config, std::string> parse_fault_config(const nlohmann::json& j);

/// The JSON form of a configuration (round-trips through parse_fault_config), with each rule's
/// remaining `times`.
[[nodiscard]] nlohmann::json to_json(const fault_config& config);

/// Does a rule's match apply to this request? `method` compares exactly (case-sensitive, as HTTP
/// methods are); `route` matches when it equals either the route template (e.g.
/// "/v1/orders/{id}/payments") or the concrete path.
[[nodiscard]] bool rule_matches(const fault_rule& rule, std::string_view method,
                                std::string_view route_template, std::string_view path);

/// Holds the active rules and a seeded PRNG (std::mt19937_64), and picks the fault that fires.
/// Not thread-safe: the server calls it from its single event-loop thread.
class fault_injector {
 public:
  fault_injector() = default;
  /// Replaces the rules and reseeds the PRNG with config.seed.
  void configure(fault_config config);
  /// Removes every rule.
  void clear();
  /// For the given stage: the first rule in list order whose stage is `stage`, that matches,
  /// has `times` left and wins its draw (a draw is taken only for rules with probability < 1,
  /// so a configuration of certain rules consumes no randomness). The chosen rule's `times` is
  /// decremented. Returns a copy of the rule that fired, or nullopt.
  [[nodiscard]] std::optional<fault_rule> pick(fault_stage stage, std::string_view method,
                                               std::string_view route_template,
                                               std::string_view path);
  [[nodiscard]] const fault_config& config() const noexcept { return config_; }

 private:
  fault_config config_;
  std::mt19937_64 rng_{0};
};

}  // namespace idem::mock
