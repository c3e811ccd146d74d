#include "idem_soak/server_facts.hpp"

#include "idem_soak/sqlite_reader.hpp"

namespace idem::soak {

server_facts read_server_facts(const std::string& path) {
  const sqlite_reader db(path);
  server_facts facts;
  // Every principal's orders: a soak uses one token, and an order of another would be a
  // phantom the checks should see.
  db.each(
      "SELECT o.id, o.merchant_order_id, o.status,"
      " (SELECT COUNT(*) FROM payments p WHERE p.order_id = o.id AND p.status = 'CAPTURED'),"
      " (SELECT COUNT(*) FROM payments p WHERE p.order_id = o.id AND p.status = 'REFUNDED'),"
      " (SELECT COUNT(*) FROM provider_charges c WHERE c.order_id = o.id AND c.captured = 1),"
      " (SELECT COUNT(*) FROM provider_charges c WHERE c.order_id = o.id AND c.captured = 1"
      "    AND c.refunded = 0 AND NOT EXISTS"
      "    (SELECT 1 FROM provider_refunds r WHERE r.charge_id = c.charge_id))"
      " FROM orders o ORDER BY o.merchant_order_id, o.id",
      [&](const sqlite_row& r) {
        facts.orders.push_back({.id = r.text(0),
                                .merchant_order_id = r.text(1),
                                .status = r.text(2),
                                .captured_payments = r.integer(3),
                                .refunded_payments = r.integer(4),
                                .charges = r.integer(5),
                                .net_charges = r.integer(6)});
      });
  facts.processing_records =
      db.scalar("SELECT COUNT(*) FROM idempotency_records WHERE state = 'PROCESSING'");
  return facts;
}

}  // namespace idem::soak
