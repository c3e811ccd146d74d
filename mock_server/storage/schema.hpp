#pragma once
// The mock server's tables, created if missing. One file holds everything: idempotency records,
// orders, payments, the mock payment provider's ledger, counters and the clock offset.

#include "mock_server/storage/sqlite.hpp"

namespace idem::mock {

/// Creates every table and index if it does not exist yet (idempotent).
void create_schema(database& db);

/// Deletes every row of every table (POST /_mock/reset). Runs in one transaction.
void wipe_all(database& db);

}  // namespace idem::mock
