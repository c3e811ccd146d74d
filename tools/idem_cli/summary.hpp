#pragma once
// The JSON idem-cli prints on stdout: one outcome for `submit`, one summary for `load`
// (contract section 9).

#include <chrono>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "idem/outcome.hpp"
#include "idem_cli/exit_status.hpp"
#include "idem_cli/load/failure_tally.hpp"

namespace idem::cli {

/// How late the intents that ran out of their deadline ended: for each intent that ended without
/// a deciding answer (unresolved or not_sent, not interrupted), its end minus its deadline (its
/// submission plus the deadline; negative: it ended before). Only measured when the run knows
/// the deadline (`idem-cli load`).
struct deadline_overshoot {
  std::uint64_t intents = 0;  ///< how many intents were measured; 0: none
  std::chrono::microseconds p50{0};
  std::chrono::microseconds p99{0};
  std::chrono::microseconds max{0};
};

/// What a load run did. `attempts` counts writes; `retries` the writes beyond each intent's
/// first. A payment never submitted because its order did not succeed counts in `intents` and
/// in `not_sent` (it never left the client: nothing happened), and has no latency sample.
struct load_summary {
  std::uint64_t intents = 0;
  outcome_counts counts;
  std::uint64_t recovered_by_lookup = 0;
  /// Intents the lookup found more than one record of: the backend executed them more than
  /// once (they count as succeeded; stderr says so too).
  std::uint64_t duplicates_found = 0;
  std::uint64_t attempts = 0;
  std::uint64_t retries = 0;
  std::chrono::microseconds p50{0};  ///< per intent, from its submission to its outcome
  std::chrono::microseconds p99{0};
  std::chrono::milliseconds elapsed{0};
  bool interrupted = false;  ///< stopped by Ctrl-C before every intent had run
  /// Why the intents that did not succeed ended as they did (printed on stderr, not in JSON).
  failure_tally failures{};
  std::vector<std::string> unresolved_keys{};  ///< the keys of the intents that ended unresolved
  deadline_overshoot overshoot{};
  /// After Ctrl-C: why the store could not make every event durable when the client shut down
  /// (a journal on a full disk); empty when it could, or when the run was not interrupted. The
  /// journal then holds what it held at its last commit. Printed on stderr, not in JSON.
  std::error_code journal_error{};
};

/// `{intents, succeeded, rejected, not_sent, unresolved, recovered_by_lookup, attempts, retries,
/// p50_ms, p99_ms, elapsed_ms}`, plus `duplicates_found` when the lookup found more than one
/// record of some intents; the percentiles in milliseconds with one decimal; plus
/// `interrupted: true` when Ctrl-C stopped the run, and `deadline_overshoot_ms: {intents, p50,
/// p99, max}` (milliseconds with three decimals) when some intents ran out of their deadline.
[[nodiscard]] nlohmann::json to_json(const load_summary& s);

/// `{outcome, status, recovered_by_lookup, replayed, attempts, key, elapsed_ms, body}`, plus
/// `matching_records` when the lookup found the result (records of ours it found), plus
/// `error` for every outcome other than succeeded: the client bug it names if any (e.g.
/// `idempotency-key-mismatch`), else why in words (failure_words, with `url` for a transport
/// error and `lookup_url` for what the lookup got). `status` is null when no answer decided it;
/// `body` is the deciding answer's JSON (a string if it is not JSON, null if empty).
[[nodiscard]] nlohmann::json to_json(const outcome& o, std::string_view url = {},
                                     std::string_view lookup_url = {});

/// What idem-cli prints on stderr for an intent the lookup found `records` (> 1) records of.
[[nodiscard]] std::string duplicates_words(std::uint32_t records);

}  // namespace idem::cli
