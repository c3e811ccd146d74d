#pragma once
// A small orders backend with an idempotency layer of its own and defects that can be switched
// on one by one, for the tests of `idem-cli conform`: with none it keeps every promise idem
// relies on (as the contract's section 3 states them); each defect breaks one of them the way
// hand-written layers do. It runs in this process on 127.0.0.1:0, on a thread of its own
// (in_process_http_server), and its delays are timers on that thread, so a race against it is a
// real one.
//
// Routes: POST /v1/orders (Bearer token = principal; Idempotency-Key; a JSON object with a
// string merchant_order_id, unique per principal), GET /v1/orders?merchant_order_id=X
// ({"data": [...]}). Answers as the mock server does: 201 with `Location` and
// `Idempotent-Replayed: false`, replays marked `true`, 422 idempotency-key-mismatch,
// 409 idempotency-request-in-progress with `Retry-After: 1`, 409 duplicate-business-id (stored),
// 400 for a missing or invalid key and for a body without a merchant_order_id (not stored).
// broken_backend_wording words answers the way other layers do (a replay answered 409, a bare
// 409 from the unique constraint, another key header), so conform is tested on how it reads them.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "tests/support/servers/in_process_http_server.hpp"

namespace idem::kit {

/// The defects, each on its own.
struct broken_backend_defects {
  /// Looks the key up, waits `race_gap`, then inserts it: requests racing with one key all find
  /// it absent and all execute.
  bool check_then_insert = false;
  /// One key space for every principal: another principal's request under a key replays the
  /// first principal's answer.
  bool keys_not_scoped = false;
  /// The body is not compared under a key: another body gets the first body's answer.
  bool body_not_compared = false;
  /// No idempotency layer at all: the key is not read and every POST executes; only the
  /// business's unique constraint (one order per merchant_order_id) stops a duplicate.
  bool no_idempotency_layer = false;
};

/// How the backend words its answers, each the way some real layer does; none breaks a promise.
struct broken_backend_wording {
  /// The status of a replay, its body the stored one (0: the stored status, e.g. a 409 replay
  /// where the first answer was a 201).
  int replay_status = 0;
  bool mark_replays = true;  ///< `Idempotent-Replayed: true|false` on stored answers
  /// The unique constraint answers a bare 409 `{"detail": "order with this merchant_order_id
  /// already exists."}` (a web framework's words) instead of problem+json duplicate-business-id.
  bool plain_business_conflict = false;
  /// ...and with an empty body: nothing tells it from "in progress".
  bool empty_business_conflict = false;
  std::string key_header = "Idempotency-Key";  ///< the header the layer reads the key from
};

struct broken_backend_options {
  broken_backend_defects defects{};
  broken_backend_wording wording{};
  std::chrono::milliseconds race_gap{200};  ///< check-then-insert's gap between look-up and insert
  /// How long one execution takes (the key is held meanwhile: duplicates see "in progress").
  std::chrono::milliseconds execution{20};
};

/// Thread-safety: call it from the test's thread.
class broken_backend {
 public:
  explicit broken_backend(broken_backend_options options = {});
  ~broken_backend();
  broken_backend(const broken_backend&) = delete;
  broken_backend& operator=(const broken_backend&) = delete;

  /// "http://127.0.0.1:<port>".
  [[nodiscard]] std::string url() const;
  /// Executions of the business operation so far (each POST that got past the idempotency
  /// layer), read on the server's thread.
  [[nodiscard]] std::size_t executions();
  /// Orders the backend holds (what a lookup by business id can find).
  [[nodiscard]] std::size_t orders();

  struct state;  // the records and orders (broken_backend.cpp)

 private:
  std::shared_ptr<state> state_;
  in_process_http_server server_;  // after state_: stopped before state_ goes
};

}  // namespace idem::kit
