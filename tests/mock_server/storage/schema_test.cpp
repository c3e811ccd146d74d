#include "mock_server/storage/schema.hpp"
#include "tests/mock_server/support/count_rows.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace idem::mock {
namespace {

using test::count_rows;

const std::vector<std::string> all_tables = {
    "idempotency_records", "orders",           "payments", "provider_charges",
    "provider_refunds",    "business_id_keys", "counters", "settings",
};

void fill_every_table(database& db) {
  db.exec(R"sql(
    INSERT INTO idempotency_records (principal, operation, idem_key, fingerprint, state,
      lease_owner, lease_expires_at, created_at, request_id)
      VALUES ('p', 'POST /v1/orders', 'k', 'f', 'PROCESSING', 'o', 0, 0, 'req_1');
    INSERT INTO orders (id, principal, merchant_order_id, customer_id, currency, amount_minor,
      items, status, created_at) VALUES ('ord_1', 'p', 'm', 'c', 'EUR', 1, '[]', 'CREATED', 0);
    INSERT INTO payments (id, order_id, amount_minor, currency, status, provider_charge_id,
      created_at) VALUES ('pay_1', 'ord_1', 1, 'EUR', 'CAPTURED', 'ch_1', 0);
    INSERT INTO provider_charges (provider_key, charge_id, order_id, amount_minor, currency,
      captured, created_at) VALUES ('pk', 'ch_1', 'ord_1', 1, 'EUR', 1, 0);
    INSERT INTO provider_refunds (refund_key, charge_id, created_at) VALUES ('rk', 'ch_1', 0);
    INSERT INTO business_id_keys (principal, merchant_order_id, idem_key) VALUES ('p', 'm', 'k');
    INSERT INTO counters (name, value) VALUES ('requests', 1);
    INSERT INTO settings (name, value) VALUES ('clock_offset_ms', 1000);
  )sql");
}

TEST(schema, CreatesEveryTable) {
  database db{":memory:"};
  create_schema(db);
  for (const auto& table : all_tables) {
    EXPECT_EQ(count_rows(db, table), 0) << table;
  }
}

TEST(schema, CreatingTheSchemaAgainKeepsTheData) {
  database db{":memory:"};
  create_schema(db);
  fill_every_table(db);
  create_schema(db);
  for (const auto& table : all_tables) {
    EXPECT_EQ(count_rows(db, table), 1) << table;
  }
}

TEST(schema, ReaperHasAnIndexOnStateAndExpiry) {
  database db{":memory:"};
  create_schema(db);
  auto& stmt = db.prepare(
      "EXPLAIN QUERY PLAN DELETE FROM idempotency_records"
      " WHERE state = 'COMPLETED' AND expires_at <= 5");
  std::string plan;
  while (stmt.step()) {
    plan += stmt.text(3) + "\n";
  }
  EXPECT_NE(plan.find("USING INDEX"), std::string::npos) << plan;
}

TEST(schema, WipeAllDeletesEveryRowOfEveryTable) {
  database db{":memory:"};
  create_schema(db);
  fill_every_table(db);
  wipe_all(db);
  for (const auto& table : all_tables) {
    EXPECT_EQ(count_rows(db, table), 0) << table;
  }
  EXPECT_FALSE(db.in_transaction());
}

TEST(schema, RecordIdsAreNotReusedAfterAWipe) {
  database db{":memory:"};
  create_schema(db);
  fill_every_table(db);
  wipe_all(db);
  fill_every_table(db);
  auto& stmt = db.prepare("SELECT id FROM idempotency_records");
  ASSERT_TRUE(stmt.step());
  EXPECT_EQ(stmt.int64(0), 2);
}

}  // namespace
}  // namespace idem::mock
