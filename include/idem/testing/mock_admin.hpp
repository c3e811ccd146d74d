#pragma once
/// @file
/// A client for the mock server's admin API (contract section 6, under /_mock/) over blocking
/// libcurl: fault rules and presets, stats, the invariants, the clock, reset.

#include <chrono>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "idem/testing/fault_set.hpp"
#include "idem/testing/invariants.hpp"
#include "idem/testing/mock_result.hpp"
#include "idem/testing/mock_stats.hpp"

namespace idem::kit {

/// The admin API of the idem-mock-server at `base_url` (one the kit started, or any other).
/// Every call is one blocking request with a 30 s limit on its own connection; it never
/// throws. Errors: mock_errc::request_failed (no answer), refused (an error status; the
/// detail holds the server's problem, e.g. which rule field is wrong), bad_answer.
/// Thread-safety: a value; its const members may be called from several threads at once.
class mock_admin {
 public:
  mock_admin(std::string base_url, std::string admin_token);

  [[nodiscard]] const std::string& base_url() const noexcept { return base_url_; }

  /// Replaces the fault rules (PUT /_mock/faults).
  mock_result<void> set_faults(const fault_set& faults) const;
  /// Replaces the fault rules with a configuration written by hand, as JSON.
  mock_result<void> set_faults_json(const nlohmann::json& config) const;
  /// Replaces the fault rules with the server's preset `name` (docs/TESTING.md lists them), with
  /// `seed` instead of the preset's own when given. An unknown name is refused; the detail
  /// lists the known ones.
  mock_result<void> use_preset(std::string_view name,
                               std::optional<std::uint64_t> seed = std::nullopt) const;
  /// No more faults (DELETE /_mock/faults).
  mock_result<void> clear_faults() const;
  /// The active rules, each with the `times` it has left (GET /_mock/faults).
  [[nodiscard]] mock_result<nlohmann::json> faults() const;

  /// The counters (GET /_mock/stats).
  [[nodiscard]] mock_result<mock_stats> stats() const;
  /// The invariants over everything the server holds (GET /_mock/invariants). A failure to ask
  /// is a report that is not ok and says why.
  [[nodiscard]] invariants_report check_invariants() const;

  /// Moves the server's clock forward (leases and TTLs run out; POST /_mock/clock). The offset
  /// is stored: it survives a restart.
  mock_result<void> advance_clock(std::chrono::milliseconds by) const;
  /// Finishes now the PROCESSING records whose lease ran out (POST /_mock/complete); returns
  /// how many.
  mock_result<std::int64_t> complete_abandoned() const;
  /// Forgets everything: orders, keys, counters, fault rules, the clock's offset.
  mock_result<void> reset() const;
  /// Replaces which tokens act as one named principal (token -> name; PUT /_mock/principals);
  /// an empty map makes every token a principal of its own again.
  mock_result<void> set_principals(const std::map<std::string, std::string>& principals) const;

 private:
  std::string base_url_;
  std::string admin_token_;
};

}  // namespace idem::kit
