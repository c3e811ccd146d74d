#pragma once
// The in-process mock payment provider: an "external" system with its own idempotency by provider
// key. It keeps its ledger in the same SQLite file but commits each call on its own (autocommit),
// independently of the server's business transaction, as a real provider would: a charge that
// happened stays happened even if the server's transaction later rolls back or the process dies.
// Callers must not call it while they hold a transaction.

#include <cstdint>
#include <optional>
#include <string>

#include "mock_server/storage/sqlite.hpp"

namespace idem::mock {

struct provider_charge {
  std::string provider_key;
  std::string charge_id;
  std::string order_id;
  std::int64_t amount_minor = 0;
  std::string currency;
  bool captured = false;  ///< false: declined (no money moved)
  bool refunded = false;
};

/// Not thread-safe; uses the caller's connection.
class payment_provider {
 public:
  explicit payment_provider(database& db) : db_(db) {}

  /// Charges once per provider key: the first call creates the charge (declined when
  /// `payment_method == "card_declined"`, captured otherwise); later calls with the same key
  /// return the first result unchanged, whatever their other arguments.
  provider_charge charge(std::string_view provider_key, std::string_view order_id,
                         std::int64_t amount_minor, std::string_view currency,
                         std::string_view payment_method, std::int64_t now_ms);
  /// What the provider knows about a provider key (no side effect).
  [[nodiscard]] std::optional<provider_charge> find(std::string_view provider_key);
  /// Refunds a captured charge once per refund key; refunding an already refunded charge under
  /// another key does nothing. True when the charge is (now) refunded.
  bool refund(std::string_view refund_key, std::string_view charge_id, std::int64_t now_ms);

  // The three counts below are kept in memory (O(1)): counted from the tables once
  // (load_counts(), or the first call), then followed by the charges and refunds made here.

  /// Captured charges ever made (refunded ones included).
  [[nodiscard]] std::int64_t captured_charges();
  [[nodiscard]] std::int64_t refunds();
  /// Orders with more than one captured charge that was not refunded.
  [[nodiscard]] std::int64_t orders_with_multiple_charges();
  /// Counts the tables again (at start-up, after they were wiped). Outside a transaction.
  void load_counts();

 private:
  struct counts {
    std::int64_t captured_charges = 0;
    std::int64_t refunds = 0;
    std::int64_t orders_with_multiple_charges = 0;
  };
  [[nodiscard]] counts current();
  /// Captured charges of the order that are not refunded (through the index by order).
  [[nodiscard]] std::int64_t open_charges_of(std::string_view order_id);

  database& db_;
  std::optional<counts> counts_;
};

}  // namespace idem::mock
