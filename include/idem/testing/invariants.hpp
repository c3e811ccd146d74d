#pragma once
/// @file
/// The exactly-once invariants the mock server checks over its whole database
/// (`GET /_mock/invariants`): no order created twice, no order charged twice, at most one
/// idempotency key per business id. One call, one assertion:
///
///     const auto report = server.admin().check_invariants();
///     EXPECT_TRUE(report.ok()) << report.describe();

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "idem/testing/mock_result.hpp"

namespace idem::kit {

/// One invariant and what breaks it.
struct invariant_check {
  std::string name;  ///< no_order_created_twice, no_order_charged_twice, one_key_per_business_id
  bool ok = false;
  std::int64_t violations = 0;        ///< how many orders or business ids break it
  std::vector<std::string> examples;  ///< a few of them, named (order ids, merchant_order_ids)
};

/// Every invariant's verdict, or why they could not be read. A value.
struct invariants_report {
  std::vector<invariant_check> checks;
  /// Set when the server could not be asked (not running, refused, bad answer): then the
  /// report is not ok and describe() says why.
  std::optional<mock_error> unavailable;

  /// True when the checks were read, there is at least one, and every one holds.
  [[nodiscard]] bool ok() const noexcept;
  /// Several lines: a verdict, then "[ ok ] name" or "[FAIL] name: N violation(s)" with the
  /// examples below it.
  [[nodiscard]] std::string describe() const;
};

/// Reads the answer of `GET /_mock/invariants`; one that does not have the documented shape
/// gives a report whose `unavailable` is mock_errc::bad_answer.
[[nodiscard]] invariants_report parse_invariants(const nlohmann::json& answer);

/// describe().
std::ostream& operator<<(std::ostream& out, const invariants_report& r);

}  // namespace idem::kit
