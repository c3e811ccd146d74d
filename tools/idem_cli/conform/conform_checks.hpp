#pragma once
// The checks of `idem-cli conform` (docs/BACKEND_READINESS.md). Each sends real requests to
// the backend, each set with its own key and its own `{{unique}}` value, and returns its row of
// the report (all but `id` and `title`, which the runner owns); none needs the mock server's
// admin API. A check that gets no HTTP answer at all says so (`no_answer`); none throws for
// anything the backend does.

#include <cstddef>
#include <vector>

#include "idem/server_profile.hpp"
#include "idem/transport.hpp"
#include "idem_cli/conform/conform_probe.hpp"
#include "idem_cli/conform/conform_request.hpp"
#include "idem_cli/conform/conform_result.hpp"

namespace idem::cli {

/// What every check works with. Not thread-safe (the probe runs on the caller's thread).
struct conform_context {
  conform_probe& probe;
  const conform_endpoint& endpoint;
  const server_profile& profile;  ///< the profile the user means to run idem with
  unique_values& unique;
  std::size_t race = 50;  ///< requests in the racing burst
  /// The racing burst's answers: check 4 sends it, check 5 reads it.
  std::vector<transport_result> burst{};
};

/// 1. A POST without the key header: refused (pass) or executed unprotected (warn).
[[nodiscard]] check_result check_missing_key(conform_context& c);
/// 2. The same key and body again: the first answer replayed (pass), or executed again (fail).
[[nodiscard]] check_result check_replay(conform_context& c);
/// 3. The same key with another body: refused, and named a misuse by the profile (pass), or
/// answered with the first answer or executed (fail).
[[nodiscard]] check_result check_mismatch(conform_context& c);

/// 4. `c.race` requests with one key at once (kept in `c.burst`): one execution (pass),
/// counted by what the backend holds (the lookup's records, the resource ids the answers name,
/// a replay given with another status included), plus the business conflicts among the answers
/// (executions a unique constraint refused); more (fail); bare 409s that may be either (warn,
/// inconclusive).
[[nodiscard]] check_result check_race(conform_context& c);
/// 5. The answers of the burst that met the first request still running (neither the stored
/// answer nor a business conflict): read by the profile as "retry with the same key" (pass) or
/// as rejected (fail); none seen (skip).
[[nodiscard]] check_result check_in_progress(conform_context& c);

/// 6. The same key and body from another principal (--token2): its own execution (pass), or
/// the first principal's stored answer (fail); without --token2 skipped.
[[nodiscard]] check_result check_principal_scope(conform_context& c);
/// 7. A 4xx under a key, sent again: the same answer without a new execution (pass), or
/// executed again (fail).
[[nodiscard]] check_result check_final_4xx(conform_context& c);
/// 8. Keys of idem's forms (UUIDv4, UUIDv7) and of the contract's lengths (64, 255 visible
/// ASCII): accepted, kept apart from a key one character away, and replayed.
[[nodiscard]] check_result check_key_forms(conform_context& c);

}  // namespace idem::cli
