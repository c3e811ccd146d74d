#pragma once
// Orders and payments: the business rows. merchant_order_id is unique per principal (the business
// unique constraint); state changes are conditional UPDATEs. Callers run these inside their own
// transaction together with the idempotency record's completion.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "mock_server/storage/sqlite.hpp"

namespace idem::mock {

struct order {
  std::string id;
  std::string principal;
  std::string merchant_order_id;
  std::string customer_id;
  std::string currency;
  std::int64_t amount_minor = 0;
  nlohmann::json items = nlohmann::json::array();
  std::string status;  ///< "CREATED", "PAID", "CANCELLED"
  std::int64_t created_at_ms = 0;
  /// The payment record charging this order right now, if any (see reserve_payment).
  std::optional<std::int64_t> paying_record_id;
};

struct payment {
  std::string id;
  std::string order_id;
  std::int64_t amount_minor = 0;
  std::string currency;
  std::string status;  ///< "CAPTURED" or "REFUNDED"
  std::string provider_charge_id;
  std::int64_t created_at_ms = 0;
};

/// Not thread-safe; uses the caller's connection.
class order_store {
 public:
  explicit order_store(database& db) : db_(db) {}

  /// INSERT .. ON CONFLICT(principal, merchant_order_id) DO NOTHING; false when another order
  /// already holds the merchant_order_id.
  bool insert_order(const order& o);
  [[nodiscard]] std::optional<order> find_order(std::string_view principal, std::string_view id);
  [[nodiscard]] std::optional<order> find_by_merchant_order_id(std::string_view principal,
                                                               std::string_view merchant_order_id);
  /// Payments of an order, oldest first.
  [[nodiscard]] std::vector<payment> payments_of(std::string_view order_id);
  /// Marks a CREATED order as being charged by payment record `record_id`, unless another record
  /// holds it; true when `record_id` holds it now. Payments of one order are serialised across
  /// keys this way: while one is charging, or its charge is unresolved, no other may charge.
  bool reserve_payment(std::string_view order_id, std::int64_t record_id);
  /// Ends `record_id`'s reservation of the order (no-op when it does not hold it).
  void release_payment(std::string_view order_id, std::int64_t record_id);
  /// UPDATE orders SET status = to WHERE id = ? AND status = from; true if it changed a row.
  /// A status change also ends any payment reservation.
  bool transition(std::string_view order_id, std::string_view from, std::string_view to);
  void insert_payment(const payment& p);
  /// Marks a CAPTURED payment REFUNDED; true if it changed a row.
  bool mark_refunded(std::string_view payment_id);
  /// Records that `key` tried to create `merchant_order_id` (INSERT OR IGNORE).
  void note_key_for_business_id(std::string_view principal, std::string_view merchant_order_id,
                                std::string_view key);
  // The three counts below are kept in memory (O(1)): counted from the tables once
  // (load_counts(), or the first call), then followed by this store's inserts as their
  // transactions commit.

  /// The largest number of distinct keys recorded for one (principal, merchant_order_id); 0 if
  /// none.
  [[nodiscard]] std::int64_t max_keys_per_business_id();
  [[nodiscard]] std::int64_t count_orders();
  [[nodiscard]] std::int64_t count_payments();
  /// Counts the tables again (at start-up, after they were wiped). Outside a transaction.
  void load_counts();

 private:
  struct counts {
    std::int64_t orders = 0;
    std::int64_t payments = 0;
    std::int64_t max_keys_per_business_id = 0;
  };
  [[nodiscard]] counts counted();
  /// The counts, loaded if needed; inside a transaction counted afresh and not kept (the tables
  /// then hold what may still roll back).
  [[nodiscard]] counts current();
  /// Applies `change` to the counts once the current transaction commits (nothing while they
  /// are not loaded yet: loading counts the change).
  void after_commit(void (*change)(counts&, std::int64_t), std::int64_t value);

  database& db_;
  std::optional<counts> counts_;
};

/// The JSON representation of an order as the API returns it (with its payments):
/// {id, merchant_order_id, customer_id, currency, amount_minor, items, status, created_at,
///  payments: [...]}; created_at is RFC 3339 UTC.
[[nodiscard]] nlohmann::json to_json(const order& o, const std::vector<payment>& payments);
/// {id, order_id, status, amount_minor, currency, created_at}
[[nodiscard]] nlohmann::json to_json(const payment& p);

}  // namespace idem::mock
