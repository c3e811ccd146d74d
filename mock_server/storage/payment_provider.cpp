#include "mock_server/storage/payment_provider.hpp"

#include <stdexcept>

#include "mock_server/storage/ids.hpp"

namespace idem::mock {

namespace {

// A call inside the server's transaction would join it, and the server's rollback would then undo
// a charge that "really" happened, hiding the very double-charge risk the mock exists to expose.
void require_autocommit(const database& db, const char* what) {
  if (db.in_transaction()) {
    throw std::logic_error(std::string{"payment_provider::"} + what +
                           " called inside a transaction");
  }
}

}  // namespace

provider_charge payment_provider::charge(std::string_view provider_key, std::string_view order_id,
                                         std::int64_t amount_minor, std::string_view currency,
                                         std::string_view payment_method, std::int64_t now_ms) {
  require_autocommit(db_, "charge");
  // The provider key decides alone (ON CONFLICT on it): a replay gets the first result back
  // unchanged; a clash on the random charge id is a bug and throws.
  const bool captured = payment_method != "card_declined";
  auto& stmt = db_.prepare(
      "INSERT INTO provider_charges (provider_key, charge_id, order_id, amount_minor, currency,"
      " captured, refunded, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, 0, ?7)"
      " ON CONFLICT (provider_key) DO NOTHING");
  stmt.bind(1, provider_key)
      .bind(2, random_id("ch"))
      .bind(3, order_id)
      .bind(4, amount_minor)
      .bind(5, currency)
      .bind(6, captured ? 1 : 0)
      .bind(7, now_ms)
      .run();
  // In autocommit: the charge has committed, the counts follow it at once.
  if (db_.changes() == 1 && captured && counts_) {
    ++counts_->captured_charges;
    // The order's second open charge makes it an order charged twice; a third adds nothing.
    if (open_charges_of(order_id) == 2) ++counts_->orders_with_multiple_charges;
  }
  auto stored = find(provider_key);
  if (!stored) throw std::logic_error("payment_provider::charge: charge vanished after insert");
  return *stored;
}

std::optional<provider_charge> payment_provider::find(std::string_view provider_key) {
  auto& stmt = db_.prepare(
      "SELECT provider_key, charge_id, order_id, amount_minor, currency, captured, refunded"
      " FROM provider_charges WHERE provider_key = ?1");
  stmt.bind(1, provider_key);
  std::optional<provider_charge> out;
  if (stmt.step()) {
    out = provider_charge{.provider_key = stmt.text(0),
                          .charge_id = stmt.text(1),
                          .order_id = stmt.text(2),
                          .amount_minor = stmt.int64(3),
                          .currency = stmt.text(4),
                          .captured = stmt.int64(5) != 0,
                          .refunded = stmt.int64(6) != 0};
  }
  stmt.reset();
  return out;
}

bool payment_provider::refund(std::string_view refund_key, std::string_view charge_id,
                              std::int64_t now_ms) {
  require_autocommit(db_, "refund");
  // The refund row and the charge's flag change together: one provider-side commit.
  transaction txn{db_};
  // Only a captured, unrefunded charge can be refunded, and a refund key only once (primary key);
  // UNIQUE(charge_id) also refuses a second refund of the charge under another key.
  auto& insert = db_.prepare(
      "INSERT INTO provider_refunds (refund_key, charge_id, created_at)"
      " SELECT ?1, charge_id, ?3 FROM provider_charges"
      " WHERE charge_id = ?2 AND captured = 1 AND refunded = 0"
      " ON CONFLICT DO NOTHING");
  insert.bind(1, refund_key).bind(2, charge_id).bind(3, now_ms).run();
  if (db_.changes() == 1) {
    auto& mark = db_.prepare("UPDATE provider_charges SET refunded = 1 WHERE charge_id = ?1");
    mark.bind(1, charge_id).run();
    if (counts_) {
      auto& order = db_.prepare("SELECT order_id FROM provider_charges WHERE charge_id = ?1");
      order.bind(1, charge_id);
      const std::string order_id = order.step() ? order.text(0) : std::string{};
      order.reset();
      // Back to one open charge: the order is no longer charged twice.
      const bool repaired = open_charges_of(order_id) == 1;
      db_.after_commit([this, repaired] {
        if (!counts_) return;
        ++counts_->refunds;
        if (repaired) --counts_->orders_with_multiple_charges;
      });
    }
  }
  auto& state = db_.prepare("SELECT refunded FROM provider_charges WHERE charge_id = ?1");
  state.bind(1, charge_id);
  const bool refunded = state.step() && state.int64(0) != 0;
  state.reset();
  txn.commit();
  return refunded;
}

std::int64_t payment_provider::open_charges_of(std::string_view order_id) {
  auto& stmt = db_.prepare(
      "SELECT COUNT(*) FROM provider_charges WHERE order_id = ?1 AND captured = 1 AND refunded = "
      "0");
  stmt.bind(1, order_id);
  const std::int64_t n = stmt.step() ? stmt.int64(0) : 0;
  stmt.reset();
  return n;
}

void payment_provider::load_counts() {
  counts_ = counts{
      .captured_charges =
          db_.single_int64("SELECT COUNT(*) FROM provider_charges WHERE captured = 1"),
      .refunds = db_.single_int64("SELECT COUNT(*) FROM provider_refunds"),
      // A refunded extra charge is a duplicate that was repaired; only money still taken counts.
      .orders_with_multiple_charges = db_.single_int64(
          "SELECT COUNT(*) FROM (SELECT order_id FROM provider_charges"
          " WHERE captured = 1 AND refunded = 0 GROUP BY order_id HAVING COUNT(*) > 1)"),
  };
}

payment_provider::counts payment_provider::current() {
  // The provider commits on its own, so its tables never hold what may roll back: loading is
  // safe at any time.
  if (!counts_) load_counts();
  return *counts_;
}

std::int64_t payment_provider::captured_charges() {
  return current().captured_charges;
}

std::int64_t payment_provider::refunds() {
  return current().refunds;
}

std::int64_t payment_provider::orders_with_multiple_charges() {
  return current().orders_with_multiple_charges;
}

}  // namespace idem::mock
