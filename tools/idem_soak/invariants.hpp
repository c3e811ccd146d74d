#pragma once
// The soak's verdict: the invariants of issue 10 checked against what the server's database and
// the client's journal hold at the end. Pure: facts in, one row per check out.

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "idem_soak/journal_facts.hpp"
#include "idem_soak/server_facts.hpp"

namespace idem::soak {

/// One line of the verdict table.
struct check_result {
  std::string name;
  std::string value;
  bool ok = false;
  std::vector<std::string> examples{};  ///< a few of the offending items, for a failure
};

/// What the run promised: how many intents the load planned, and each run's deadline.
struct soak_expectations {
  std::uint64_t planned_intents = 0;
  std::chrono::milliseconds deadline{10'000};
  /// How far past its deadline a run may end (event-loop and fsync latency) before it counts.
  std::chrono::milliseconds overrun_tolerance{500};
};

/// The server's own counters (GET /_mock/stats): once everything ended, and the highest
/// orders_with_multiple_charges it reported while the chaos lasted (a second charge that a later
/// takeover refunded shows only there).
struct server_stats {
  nlohmann::json final = nlohmann::json::object();
  std::int64_t peak_multiple_charges = 0;
  /// How each time the server ended without being told to did (a crash is a finding).
  std::vector<std::string> unexpected_exits{};
};

struct soak_verdict {
  std::vector<check_result> checks;
  /// The longest a run went past its deadline (negative: every run ended in time).
  std::chrono::milliseconds worst_overrun{0};
  [[nodiscard]] bool passed() const noexcept;
};

/// Checks, in this order: every planned intent journaled; every intent resolved; no order
/// created twice; no order without an intent; no order charged twice (charges kept); no second
/// charge of an order at all (refunded or not); every charge backs a paid order (and a paid
/// order has exactly one); no succeeded intent without its effect on the server; no unexplained
/// rejection; the server's own orders_with_multiple_charges is 0, at the end and at its peak;
/// the server never ended on its own; no run past its deadline beyond the tolerance.
[[nodiscard]] soak_verdict check_invariants(const journal_facts& journal,
                                            const server_facts& server,
                                            const soak_expectations& expected,
                                            const server_stats& stats);

}  // namespace idem::soak
