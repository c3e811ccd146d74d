#include "mock_server/idempotency/claim_decision.hpp"

#include "mock_server/state/server_state.hpp"

#include <stdexcept>
#include <utility>

namespace idem::mock {

decision decide(server_state& state, const claim_request& claim, const std::string& business_id) {
  if (!state.db.in_transaction()) throw std::logic_error("decide: needs an open transaction");
  const auto now = claim.now_ms;
  if (!business_id.empty()) {
    // Every key that ever tried to create this merchant_order_id (max_keys_per_business_id).
    state.orders.note_key_for_business_id(claim.scope.principal, business_id, claim.scope.key);
  }
  // Only the unique constraint decides who executes: claim first, look second.
  if (auto mine = state.records.claim(claim)) {
    return decision{.what = verdict::execute, .record = std::move(*mine), .takeover = false};
  }
  auto record = state.records.find(claim.scope);
  if (record && record->state == record_state::completed &&
      record->expires_at_ms.value_or(0) <= now) {
    // An expired record counts as absent even before the reaper removes it.
    state.records.delete_if_expired(record->id, now);
    if (auto mine = state.records.claim(claim)) {
      return decision{.what = verdict::execute, .record = std::move(*mine), .takeover = false};
    }
    record = state.records.find(claim.scope);
  }
  if (!record) throw std::runtime_error("idempotency record vanished during its transaction");

  decision d{.what = verdict::busy, .record = *record, .takeover = false};
  if (record->fingerprint != claim.fingerprint) {
    d.what = verdict::mismatch;
    state.stats.increment("key_mismatches");
  } else if (record->state == record_state::completed) {
    d.what = verdict::replay;
    state.stats.increment("replays");
  } else if (record->lease_expires_at_ms <= claim.lease_now_ms &&
             state.records.take_over(record->id, record->lease_owner, claim.lease_owner,
                                     claim.lease_now_ms, claim.lease_expires_at_ms)) {
    d.what = verdict::execute;
    d.takeover = true;
    d.record = *state.records.find(claim.scope);
  }
  return d;
}

}  // namespace idem::mock
