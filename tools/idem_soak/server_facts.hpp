#pragma once
// What the mock server's database holds at the end of a soak, read straight from its SQLite
// file (read-only, after the server stopped): the orders, their payments, and the payment
// provider's own ledger of charges and refunds.

#include <cstdint>
#include <string>
#include <vector>

namespace idem::soak {

/// One order and the money around it.
struct server_order {
  std::string id;
  std::string merchant_order_id;
  std::string status;                  ///< CREATED, PAID or CANCELLED
  std::int64_t captured_payments = 0;  ///< payment rows CAPTURED
  std::int64_t refunded_payments = 0;  ///< payment rows REFUNDED
  /// The provider's captured charges for the order, and those of them not refunded: the money
  /// the customer is out of.
  std::int64_t charges = 0;
  std::int64_t net_charges = 0;
};

struct server_facts {
  std::vector<server_order> orders;  ///< by merchant_order_id
  /// Idempotency records still PROCESSING (an execution nobody finished; not itself a fault
  /// once every intent is resolved, but worth a look).
  std::int64_t processing_records = 0;
};

/// Reads the mock server database at `path`. Throws std::runtime_error if it cannot be read.
[[nodiscard]] server_facts read_server_facts(const std::string& path);

}  // namespace idem::soak
