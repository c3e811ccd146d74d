#pragma once
// The soak's seeded fault schedule: a sequence of rule sets for PUT /_mock/faults (contract
// section 6), one per epoch (a server's life, or a fault period within it), each mixing every
// fault kind on random routes; and the tally of which kinds fired, from the rules' `times`.

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>

namespace idem::soak {

/// Every fault kind the mock server knows, in the order the tally reports them.
inline constexpr const char* fault_kinds[] = {"reset_before_processing",
                                              "status_before_processing",
                                              "delay",
                                              "crash_during_processing",
                                              "drop_response_after_commit",
                                              "status_after_commit",
                                              "stall_after_commit",
                                              "provider_timeout"};

/// A rule's `times` in a soak: never used up in practice, so that what GET /_mock/faults
/// reports left tells how often the rule fired.
inline constexpr std::int64_t rule_times = 1'000'000'000;

/// The rules of epoch `epoch` of the schedule `seed`: one rule per fault kind (several for some),
/// in a shuffled order, on POSTs to every route or to one (orders, payments, cancels); the
/// arrival faults sometimes on every method, the lookups' GETs included. `share` (0..1) is about
/// the chance that a request meets some fault. Delays and stalls are sized against
/// `attempt_timeout_ms` so that some outlast an attempt.
[[nodiscard]] nlohmann::json fault_rules_for(std::uint64_t seed, std::uint64_t epoch, double share,
                                             std::int64_t attempt_timeout_ms);

/// Counts of faults fired, by kind.
class fault_tally {
 public:
  /// Adds what fired under `installed` (as PUT) given `now` (as GET /_mock/faults returned it
  /// for the same rule set): per rule, `times` installed minus `times` left.
  void add(const nlohmann::json& installed, const nlohmann::json& now);
  [[nodiscard]] const std::map<std::string, std::uint64_t>& by_kind() const noexcept {
    return by_kind_;
  }
  [[nodiscard]] std::uint64_t total() const noexcept;

 private:
  std::map<std::string, std::uint64_t> by_kind_;
};

}  // namespace idem::soak
