#pragma once
// The statements of the mock server's create-order path, as in
// mock_server/storage/record_store.cpp, order_store.cpp and counters.cpp, run here without the
// server around them: this is SQLite's ceiling for the pattern, not the server's implementation of
// it. The tables come from the server's own code (idem::mock::create_schema), so that the two
// cannot drift apart.

namespace perf {

inline constexpr const char* count_request_sql =
    "INSERT INTO counters (name, value) VALUES ('requests', 1)"
    " ON CONFLICT (name) DO UPDATE SET value = value + excluded.value";

inline constexpr const char* note_key_sql =
    "INSERT INTO business_id_keys (principal, merchant_order_id, idem_key) VALUES (?1, ?2, ?3)"
    " ON CONFLICT DO NOTHING";

inline constexpr const char* claim_sql =
    "INSERT INTO idempotency_records (principal, operation, idem_key, fingerprint, state,"
    " lease_owner, lease_expires_at, created_at, request_id, request)"
    " VALUES (?1, ?2, ?3, ?4, 'PROCESSING', ?5, ?6, ?7, ?8, ?9)"
    " ON CONFLICT (principal, operation, idem_key) DO NOTHING";

inline constexpr const char* find_sql =
    "SELECT id, principal, operation, idem_key, fingerprint, state, recovery_point, resource_id,"
    " response_status, response_headers, response_body, lease_owner, lease_expires_at,"
    " created_at, expires_at, request_id, request FROM idempotency_records"
    " WHERE principal = ?1 AND operation = ?2 AND idem_key = ?3";

inline constexpr const char* is_owner_sql =
    "SELECT 1 FROM idempotency_records WHERE id = ?1 AND state = 'PROCESSING' AND lease_owner = ?2";

inline constexpr const char* insert_order_sql =
    "INSERT INTO orders (id, principal, merchant_order_id, customer_id, currency, amount_minor,"
    " items, status, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
    " ON CONFLICT (principal, merchant_order_id) DO NOTHING";

inline constexpr const char* complete_sql =
    "UPDATE idempotency_records SET state = 'COMPLETED', response_status = ?1,"
    " response_headers = ?2, response_body = ?3, lease_expires_at = ?4, expires_at = ?5"
    " WHERE id = ?6 AND state = 'PROCESSING' AND lease_owner = ?7";

}  // namespace perf
