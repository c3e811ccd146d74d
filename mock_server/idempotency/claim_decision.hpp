#pragma once
// The record decision of contract section 3 for one POST: claim the key by its unique constraint,
// or find who holds it, in the caller's BEGIN IMMEDIATE transaction. The caller either commits it
// at once (the record is then visible as PROCESSING while the execution runs) or, when nothing
// forces a split, runs the execution and the completion in the same transaction.

#include <string>

#include "mock_server/storage/record_store.hpp"

namespace idem::mock {

struct server_state;  // state/server_state.hpp

enum class verdict {
  execute,   ///< this request claimed the key or took an expired lease over
  replay,    ///< COMPLETED with the same fingerprint
  mismatch,  ///< another fingerprint under the same scope (422)
  busy,      ///< PROCESSING under a live lease
};

struct decision {
  verdict what = verdict::busy;
  idempotency_record record;  ///< as it stands after the decision
  bool takeover = false;      ///< `execute` by taking an expired lease over
};

/// Decides inside the caller's open transaction (throws std::logic_error without one).
/// `business_id` is the merchant_order_id of a create (empty for other operations). Counts
/// `replays` and `key_mismatches`.
[[nodiscard]] decision decide(server_state& state, const claim_request& claim,
                              const std::string& business_id);

}  // namespace idem::mock
