#pragma once
// The numbers behind GET /_mock/stats and /metrics: counters kept in the database plus values
// derived from the business tables, so all of them survive a restart. A read first writes the
// traffic counted in memory (see counters.hpp), so whatever a read showed also survives kill -9.

#include <nlohmann/json.hpp>
#include <string>

namespace idem::mock {

struct server_state;  // state/server_state.hpp

/// {requests, orders, payments, provider_charges, provider_refunds, replays, key_mismatches,
///  in_progress_conflicts, business_id_conflicts, invalid_state_transitions, faults_injected,
///  orders_with_multiple_charges, max_keys_per_business_id, idempotency_records, records_purged,
///  abandoned_settled}. Persists the in-memory counters first (one small transaction).
[[nodiscard]] nlohmann::json stats_snapshot(server_state& state);

/// Prometheus text exposition (version 0.0.4) of the stats and the responses by status.
[[nodiscard]] std::string prometheus_metrics(server_state& state);

}  // namespace idem::mock
