#pragma once
// The numbers behind GET /_mock/stats and /metrics: counters kept in the database plus values
// derived from the business tables, so all of them survive a restart. /metrics, open to anyone,
// reads them from memory in O(1) (the stores count their rows once at start-up, then follow
// their own commits) and writes nothing. /_mock/stats (admin) first writes the traffic counted
// in memory (see counters.hpp), so whatever it showed also survives kill -9, and counts the
// tables again, so that it shows what they hold whoever wrote it.

#include <nlohmann/json.hpp>
#include <string>

namespace idem::mock {

struct server_state;  // state/server_state.hpp

/// {requests, orders, payments, provider_charges, provider_refunds, replays, key_mismatches,
///  in_progress_conflicts, business_id_conflicts, invalid_state_transitions, faults_injected,
///  orders_with_multiple_charges, max_keys_per_business_id, idempotency_records, records_purged,
///  abandoned_settled}. Persists the in-memory counters first (one small transaction) and
///  counts the tables again (state.load_counts()).
[[nodiscard]] nlohmann::json stats_snapshot(server_state& state);

/// Prometheus text exposition (version 0.0.4) of the stats and the responses by status. Reads
/// memory only: it never touches the database.
[[nodiscard]] std::string prometheus_metrics(server_state& state);

}  // namespace idem::mock
