#include "mock_server/admin/invariant_checks.hpp"

#include <string>

namespace idem::mock {
namespace {

using json = nlohmann::json;

constexpr std::size_t max_examples = 10;

// One check: every row `sql` returns is an offender, described by its first column.
json check(database& db, const char* name, std::string_view sql) {
  auto& stmt = db.prepare(sql);
  std::int64_t violations = 0;
  json examples = json::array();
  while (stmt.step()) {
    ++violations;
    if (examples.size() < max_examples) examples.push_back(stmt.text(0));
  }
  stmt.reset();
  return {{"name", name},
          {"ok", violations == 0},
          {"violations", violations},
          {"examples", std::move(examples)}};
}

}  // namespace

json check_invariants(database& db) {
  json checks = json::array();
  // The business unique constraint makes this hold in this server's schema; checked anyway, as
  // the reader would check any other backend.
  checks.push_back(check(db, "no_order_created_twice",
                         "SELECT 'merchant_order_id ' || merchant_order_id || ': ' || COUNT(*) ||"
                         " ' orders (' || GROUP_CONCAT(id, ', ') || ')'"
                         " FROM orders GROUP BY principal, merchant_order_id HAVING COUNT(*) > 1"
                         " ORDER BY merchant_order_id"));
  // Money still taken: captured charges not refunded, or captured payment rows.
  checks.push_back(
      check(db, "no_order_charged_twice",
            "SELECT 'order ' || o.id || ' (merchant_order_id ' || o.merchant_order_id || '): ' ||"
            " c.n || ' charges not refunded, ' || p.n || ' captured payments'"
            " FROM orders o"
            " JOIN (SELECT o2.id AS order_id, COUNT(ch.charge_id) AS n FROM orders o2"
            "       LEFT JOIN provider_charges ch ON ch.order_id = o2.id AND ch.captured = 1"
            "        AND ch.refunded = 0 GROUP BY o2.id) c ON c.order_id = o.id"
            " JOIN (SELECT o3.id AS order_id, COUNT(pay.id) AS n FROM orders o3"
            "       LEFT JOIN payments pay ON pay.order_id = o3.id AND pay.status = 'CAPTURED'"
            "       GROUP BY o3.id) p ON p.order_id = o.id"
            " WHERE c.n > 1 OR p.n > 1 ORDER BY o.merchant_order_id, o.id"));
  checks.push_back(check(db, "one_key_per_business_id",
                         "SELECT 'merchant_order_id ' || merchant_order_id || ': ' || COUNT(*) ||"
                         " ' idempotency keys tried to create it'"
                         " FROM business_id_keys GROUP BY principal, merchant_order_id"
                         " HAVING COUNT(*) > 1 ORDER BY merchant_order_id"));
  bool ok = true;
  for (const auto& c : checks)
    ok = ok && c["ok"].get<bool>();
  return {{"ok", ok}, {"checks", std::move(checks)}};
}

}  // namespace idem::mock
