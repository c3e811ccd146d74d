#include "mock_server/storage/order_store.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

namespace idem::mock {

namespace {

constexpr std::string_view order_columns =
    "SELECT id, principal, merchant_order_id, customer_id, currency, amount_minor, items, status,"
    " created_at, paying_record_id FROM orders ";

order read_order(const statement& row) {
  return order{.id = row.text(0),
               .principal = row.text(1),
               .merchant_order_id = row.text(2),
               .customer_id = row.text(3),
               .currency = row.text(4),
               .amount_minor = row.int64(5),
               .items = nlohmann::json::parse(row.text(6)),
               .status = row.text(7),
               .created_at_ms = row.int64(8),
               .paying_record_id = row.optional_int64(9)};
}

// Reads at most one order and resets the statement, so that no read snapshot stays open.
std::optional<order> read_one_order(statement& stmt) {
  std::optional<order> out;
  if (stmt.step()) out = read_order(stmt);
  stmt.reset();
  return out;
}

payment read_payment(const statement& row) {
  return payment{.id = row.text(0),
                 .order_id = row.text(1),
                 .amount_minor = row.int64(2),
                 .currency = row.text(3),
                 .status = row.text(4),
                 .provider_charge_id = row.text(5),
                 .created_at_ms = row.int64(6)};
}

// RFC 3339 in UTC with milliseconds, e.g. "2026-11-29T22:00:00.123Z".
std::string rfc3339_utc(std::int64_t ms_since_epoch) {
  using namespace std::chrono;
  const sys_time<milliseconds> t{milliseconds{ms_since_epoch}};
  const auto day = floor<days>(t);  // floor, not truncation: correct before 1970 too
  const year_month_day ymd{day};
  const hh_mm_ss hms{t - day};
  char buf[40];
  std::snprintf(buf, sizeof buf, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
                static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()),
                static_cast<int>(hms.subseconds().count()));
  return buf;
}

}  // namespace

bool order_store::insert_order(const order& o) {
  // Only the business constraint is the conflict target: a clash on the random id is a bug and
  // must throw rather than pass for a duplicate merchant_order_id.
  auto& stmt = db_.prepare(
      "INSERT INTO orders (id, principal, merchant_order_id, customer_id, currency, amount_minor,"
      " items, status, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)"
      " ON CONFLICT (principal, merchant_order_id) DO NOTHING");
  stmt.bind(1, o.id)
      .bind(2, o.principal)
      .bind(3, o.merchant_order_id)
      .bind(4, o.customer_id)
      .bind(5, o.currency)
      .bind(6, o.amount_minor)
      .bind(7, o.items.dump())
      .bind(8, o.status)
      .bind(9, o.created_at_ms)
      .run();
  if (db_.changes() != 1) return false;
  after_commit([](counts& c, std::int64_t) { ++c.orders; }, 0);
  return true;
}

std::optional<order> order_store::find_order(std::string_view principal, std::string_view id) {
  static const auto sql = std::string{order_columns} + "WHERE id = ?1 AND principal = ?2";
  auto& stmt = db_.prepare(sql);
  stmt.bind(1, id).bind(2, principal);
  return read_one_order(stmt);
}

std::optional<order> order_store::find_by_merchant_order_id(std::string_view principal,
                                                            std::string_view merchant_order_id) {
  static const auto sql =
      std::string{order_columns} + "WHERE principal = ?1 AND merchant_order_id = ?2";
  auto& stmt = db_.prepare(sql);
  stmt.bind(1, principal).bind(2, merchant_order_id);
  return read_one_order(stmt);
}

std::vector<payment> order_store::payments_of(std::string_view order_id) {
  // rowid breaks ties between payments made in the same millisecond: insertion order.
  auto& stmt = db_.prepare(
      "SELECT id, order_id, amount_minor, currency, status, provider_charge_id, created_at"
      " FROM payments WHERE order_id = ?1 ORDER BY created_at, rowid");
  stmt.bind(1, order_id);
  std::vector<payment> out;
  while (stmt.step()) {
    out.push_back(read_payment(stmt));
  }
  return out;
}

bool order_store::reserve_payment(std::string_view order_id, std::int64_t record_id) {
  auto& stmt = db_.prepare(
      "UPDATE orders SET paying_record_id = ?2 WHERE id = ?1 AND status = 'CREATED'"
      " AND (paying_record_id IS NULL OR paying_record_id = ?2)");
  stmt.bind(1, order_id).bind(2, record_id).run();
  return db_.changes() == 1;
}

void order_store::release_payment(std::string_view order_id, std::int64_t record_id) {
  auto& stmt = db_.prepare(
      "UPDATE orders SET paying_record_id = NULL WHERE id = ?1 AND paying_record_id = ?2");
  stmt.bind(1, order_id).bind(2, record_id).run();
}

bool order_store::transition(std::string_view order_id, std::string_view from,
                             std::string_view to) {
  auto& stmt = db_.prepare(
      "UPDATE orders SET status = ?1, paying_record_id = NULL WHERE id = ?2 AND status = ?3");
  stmt.bind(1, to).bind(2, order_id).bind(3, from).run();
  return db_.changes() == 1;
}

void order_store::insert_payment(const payment& p) {
  auto& stmt = db_.prepare(
      "INSERT INTO payments (id, order_id, amount_minor, currency, status, provider_charge_id,"
      " created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)");
  stmt.bind(1, p.id)
      .bind(2, p.order_id)
      .bind(3, p.amount_minor)
      .bind(4, p.currency)
      .bind(5, p.status)
      .bind(6, p.provider_charge_id)
      .bind(7, p.created_at_ms)
      .run();
  after_commit([](counts& c, std::int64_t) { ++c.payments; }, 0);
}

bool order_store::mark_refunded(std::string_view payment_id) {
  auto& stmt =
      db_.prepare("UPDATE payments SET status = 'REFUNDED' WHERE id = ?1 AND status = 'CAPTURED'");
  stmt.bind(1, payment_id).run();
  return db_.changes() == 1;
}

void order_store::note_key_for_business_id(std::string_view principal,
                                           std::string_view merchant_order_id,
                                           std::string_view key) {
  auto& stmt = db_.prepare(
      "INSERT INTO business_id_keys (principal, merchant_order_id, idem_key) VALUES (?1, ?2, ?3)"
      " ON CONFLICT DO NOTHING");
  stmt.bind(1, principal).bind(2, merchant_order_id).bind(3, key).run();
  if (db_.changes() != 1 || !counts_) return;
  // Rows are never deleted but by a wipe, so the largest count only grows: this one's count,
  // read through the primary key, is all it takes.
  auto& keys = db_.prepare(
      "SELECT COUNT(*) FROM business_id_keys WHERE principal = ?1 AND merchant_order_id = ?2");
  keys.bind(1, principal).bind(2, merchant_order_id);
  const std::int64_t n = keys.step() ? keys.int64(0) : 0;
  keys.reset();
  after_commit(
      [](counts& c, std::int64_t keys_of_this_id) {
        c.max_keys_per_business_id = std::max(c.max_keys_per_business_id, keys_of_this_id);
      },
      n);
}

order_store::counts order_store::counted() {
  return counts{
      .orders = db_.single_int64("SELECT COUNT(*) FROM orders"),
      .payments = db_.single_int64("SELECT COUNT(*) FROM payments"),
      .max_keys_per_business_id =
          db_.single_int64("SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n"
                           " FROM business_id_keys GROUP BY principal, merchant_order_id)"),
  };
}

order_store::counts order_store::current() {
  if (db_.in_transaction()) return counted();
  if (!counts_) counts_ = counted();
  return *counts_;
}

void order_store::load_counts() {
  counts_ = counted();
}

void order_store::after_commit(void (*change)(counts&, std::int64_t), std::int64_t value) {
  if (!counts_) return;
  db_.after_commit([this, change, value] {
    if (counts_) change(*counts_, value);
  });
}

std::int64_t order_store::max_keys_per_business_id() {
  return current().max_keys_per_business_id;
}

std::int64_t order_store::count_orders() {
  return current().orders;
}

std::int64_t order_store::count_payments() {
  return current().payments;
}

nlohmann::json to_json(const order& o, const std::vector<payment>& payments) {
  auto list = nlohmann::json::array();
  for (const auto& p : payments) {
    list.push_back(to_json(p));
  }
  return {{"id", o.id},
          {"merchant_order_id", o.merchant_order_id},
          {"customer_id", o.customer_id},
          {"currency", o.currency},
          {"amount_minor", o.amount_minor},
          {"items", o.items},
          {"status", o.status},
          {"created_at", rfc3339_utc(o.created_at_ms)},
          {"payments", std::move(list)}};
}

nlohmann::json to_json(const payment& p) {
  return {{"id", p.id},
          {"order_id", p.order_id},
          {"status", p.status},
          {"amount_minor", p.amount_minor},
          {"currency", p.currency},
          {"created_at", rfc3339_utc(p.created_at_ms)}};
}

}  // namespace idem::mock
