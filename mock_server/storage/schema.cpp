#include "mock_server/storage/schema.hpp"

#include <array>
#include <string>
#include <string_view>

namespace idem::mock {

namespace {

// Every time is an INTEGER of milliseconds since the Unix epoch (server clock, offset included).
constexpr std::string_view schema_sql = R"sql(
CREATE TABLE IF NOT EXISTS idempotency_records (
  -- AUTOINCREMENT: an id is never reused after a purge, so a stale executor's id cannot name
  -- a newer record.
  id               INTEGER PRIMARY KEY AUTOINCREMENT,
  principal        TEXT    NOT NULL,
  operation        TEXT    NOT NULL,
  idem_key         TEXT    NOT NULL,
  fingerprint      TEXT    NOT NULL,
  state            TEXT    NOT NULL CHECK (state IN ('PROCESSING', 'COMPLETED')),
  recovery_point   TEXT    NOT NULL DEFAULT '',
  resource_id      TEXT    NOT NULL DEFAULT '',
  response_status  INTEGER,           -- NULL until COMPLETED
  response_headers TEXT,              -- JSON array of [name, value] pairs
  response_body    TEXT,
  lease_owner      TEXT    NOT NULL,
  lease_expires_at INTEGER NOT NULL,
  created_at       INTEGER NOT NULL,
  expires_at       INTEGER,           -- completion time + TTL; NULL while PROCESSING
  request_id       TEXT    NOT NULL,
  -- What the completer needs to finish an abandoned execution without its client:
  -- {"path", "body"} as JSON, the body cut to what the operation reads; '' once COMPLETED
  -- (and in files written before it existed).
  request          TEXT    NOT NULL DEFAULT '',
  -- The only arbiter of who executes a key (contract section 3).
  UNIQUE (principal, operation, idem_key),
  UNIQUE (request_id)
);
CREATE INDEX IF NOT EXISTS idempotency_records_by_expiry
  ON idempotency_records (state, expires_at);

CREATE TABLE IF NOT EXISTS orders (
  id                TEXT    PRIMARY KEY,
  principal         TEXT    NOT NULL,
  merchant_order_id TEXT    NOT NULL,
  customer_id       TEXT    NOT NULL,
  currency          TEXT    NOT NULL,
  amount_minor      INTEGER NOT NULL,
  items             TEXT    NOT NULL,  -- JSON array
  status            TEXT    NOT NULL CHECK (status IN ('CREATED', 'PAID', 'CANCELLED')),
  created_at        INTEGER NOT NULL,
  -- The payment record that is charging this order (NULL: none). Serialises payments of one
  -- order across keys: while it is set, no other payment may charge the order.
  paying_record_id  INTEGER,
  -- The business unique constraint: it keeps blocking duplicates after a key's record expired.
  UNIQUE (principal, merchant_order_id)
);

CREATE TABLE IF NOT EXISTS payments (
  id                 TEXT    PRIMARY KEY,
  order_id           TEXT    NOT NULL REFERENCES orders (id),
  amount_minor       INTEGER NOT NULL,
  currency           TEXT    NOT NULL,
  status             TEXT    NOT NULL CHECK (status IN ('CAPTURED', 'REFUNDED')),
  provider_charge_id TEXT    NOT NULL,
  created_at         INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS payments_by_order ON payments (order_id, created_at);

-- The mock payment provider's own ledger: an external system, so no foreign keys into the
-- server's tables (its rows outlive a rolled-back server transaction).
CREATE TABLE IF NOT EXISTS provider_charges (
  provider_key TEXT    PRIMARY KEY,
  charge_id    TEXT    NOT NULL UNIQUE,
  order_id     TEXT    NOT NULL,
  amount_minor INTEGER NOT NULL,
  currency     TEXT    NOT NULL,
  captured     INTEGER NOT NULL CHECK (captured IN (0, 1)),
  refunded     INTEGER NOT NULL DEFAULT 0 CHECK (refunded IN (0, 1)),
  created_at   INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS provider_charges_by_order ON provider_charges (order_id);

CREATE TABLE IF NOT EXISTS provider_refunds (
  refund_key TEXT    PRIMARY KEY,
  charge_id  TEXT    NOT NULL UNIQUE,  -- a charge is refunded at most once
  created_at INTEGER NOT NULL
);

-- Which idempotency keys tried to create which merchant_order_id (max_keys_per_business_id).
CREATE TABLE IF NOT EXISTS business_id_keys (
  principal         TEXT NOT NULL,
  merchant_order_id TEXT NOT NULL,
  idem_key          TEXT NOT NULL,
  PRIMARY KEY (principal, merchant_order_id, idem_key)
);

CREATE TABLE IF NOT EXISTS counters (
  name  TEXT    PRIMARY KEY,
  value INTEGER NOT NULL
);

-- Untyped value: each setting keeps the type it was stored with (clock_offset_ms: INTEGER).
CREATE TABLE IF NOT EXISTS settings (
  name  TEXT PRIMARY KEY,
  value      NOT NULL
);
)sql";

// Children before parents, so that no foreign key is violated half-way. sqlite_sequence is kept:
// record ids stay unique across a reset too.
constexpr std::array<std::string_view, 8> tables_in_delete_order = {
    "payments",         "orders",           "idempotency_records",
    "provider_refunds", "provider_charges", "business_id_keys",
    "counters",         "settings",
};

// Columns added after the first release, for database files created before them.
struct added_column {
  std::string_view table;
  std::string_view name;
  std::string_view declaration;
};
constexpr std::array<added_column, 2> added_columns = {{
    {"idempotency_records", "request", "TEXT NOT NULL DEFAULT ''"},
    {"orders", "paying_record_id", "INTEGER"},
}};

bool has_column(database& db, std::string_view table, std::string_view column) {
  auto& stmt = db.prepare("SELECT COUNT(*) FROM pragma_table_info(?1) WHERE name = ?2");
  stmt.bind(1, table).bind(2, column);
  const bool found = stmt.step() && stmt.int64(0) > 0;
  stmt.reset();
  return found;
}

}  // namespace

void create_schema(database& db) {
  transaction txn{db};
  db.exec(schema_sql);
  for (const auto& c : added_columns) {
    if (!has_column(db, c.table, c.name)) {
      db.exec("ALTER TABLE " + std::string{c.table} + " ADD COLUMN " + std::string{c.name} + " " +
              std::string{c.declaration});
    }
  }
  txn.commit();
}

void wipe_all(database& db) {
  transaction txn{db};
  for (auto table : tables_in_delete_order) {
    db.exec("DELETE FROM " + std::string{table});
  }
  txn.commit();
}

}  // namespace idem::mock
