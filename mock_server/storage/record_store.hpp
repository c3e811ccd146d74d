#pragma once
// Idempotency records (contract section 3). Every method is one SQL statement or a small set run
// by the caller inside its transaction; claims rely on the unique constraint on
// (principal, operation, idem_key) through `INSERT .. ON CONFLICT DO NOTHING`, never on a prior
// SELECT. Updates after the claim are compare-and-swap on `lease_owner`.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "mock_server/http/http_message.hpp"
#include "mock_server/storage/sqlite.hpp"

namespace idem::mock {

/// (principal, operation, key): the scope a key lives in.
struct record_scope {
  std::string principal;
  std::string operation;  ///< method + route template, e.g. "POST /v1/orders/{id}/payments"
  std::string key;
};

enum class record_state { processing, completed };

/// A response kept for replay: status, allow-listed headers (Location, Content-Type), body.
struct stored_response {
  int status = 0;
  header_list headers;
  std::string body;
};

struct idempotency_record {
  std::int64_t id = 0;
  record_scope scope;
  std::string fingerprint;
  record_state state = record_state::processing;
  std::string recovery_point;               ///< "" = claimed, nothing done yet
  std::string resource_id;                  ///< the order/payment the execution touched, if any
  std::optional<stored_response> response;  ///< set when completed
  std::string lease_owner;
  std::int64_t lease_expires_at_ms = 0;
  std::int64_t created_at_ms = 0;
  std::optional<std::int64_t> expires_at_ms;  ///< set when completed
  std::string request_id;                     ///< unique per record, stable across takeovers
  /// The request as the completer needs it (`{"path", "body"}`, JSON text) while the record is
  /// PROCESSING; "" once it is COMPLETED and in records written by servers that did not keep it.
  std::string request;
};

/// Fields of a new claim.
struct claim_request {
  record_scope scope;
  std::string fingerprint;
  std::string request_id;
  std::string lease_owner;
  std::int64_t now_ms = 0;        ///< wall time (server_clock::now_ms): created_at, TTL
  std::int64_t lease_now_ms = 0;  ///< lease time (server_clock::lease_now_ms)
  std::int64_t lease_expires_at_ms = 0;
  std::string request;  ///< see idempotency_record::request
};

/// Not thread-safe; uses the caller's connection.
class record_store {
 public:
  explicit record_store(database& db) : db_(db) {}

  /// INSERT .. ON CONFLICT DO NOTHING; true when this call created the record (it owns the lease).
  bool try_claim(const claim_request& claim);
  /// try_claim, returning the record it created (as stored, without reading it back), or
  /// nullopt when the scope was already taken.
  [[nodiscard]] std::optional<idempotency_record> claim(const claim_request& claim);
  [[nodiscard]] std::optional<idempotency_record> find(const record_scope& scope);
  /// The record with this id (ids are never reused, so a stale id never names a newer record).
  [[nodiscard]] std::optional<idempotency_record> find_by_id(std::int64_t id);
  /// PROCESSING records whose lease has expired at `lease_now_ms` and that kept their request
  /// (the completer can run them), oldest first, at most `limit`.
  [[nodiscard]] std::vector<idempotency_record> abandoned(std::int64_t lease_now_ms,
                                                          std::size_t limit);
  /// The record with this request id, only if it belongs to `principal`.
  [[nodiscard]] std::optional<idempotency_record> find_by_request_id(std::string_view principal,
                                                                     std::string_view request_id);
  /// Compare-and-swap takeover: succeeds only if the record is still PROCESSING, still owned by
  /// `expected_owner`, and its lease has expired at `now_ms` (lease time).
  bool take_over(std::int64_t id, std::string_view expected_owner, std::string_view new_owner,
                 std::int64_t now_ms, std::int64_t new_lease_expires_at_ms);
  /// Records progress; only the current lease owner of a PROCESSING record may.
  bool set_recovery_point(std::int64_t id, std::string_view owner, std::string_view point,
                          std::string_view resource_id);
  /// PROCESSING -> COMPLETED with the response; only the current lease owner may. The request
  /// kept for the completer is dropped: a replay needs only the response and the fingerprint.
  bool complete(std::int64_t id, std::string_view owner, const stored_response& response,
                std::int64_t now_ms, std::int64_t expires_at_ms);
  /// True while `owner` holds the lease of this PROCESSING record. Executors check it before
  /// their first side effect: operations run without suspending from there on, so nobody can
  /// take the record over between this check and the provider call.
  [[nodiscard]] bool is_owner(std::int64_t id, std::string_view owner);
  /// Deletes a PROCESSING record (failure before any side effect); only its lease owner may.
  bool release(std::int64_t id, std::string_view owner);
  /// Sets the lease of a PROCESSING record to expire at `now_ms` (the next request takes over);
  /// only its owner may.
  bool expire_lease(std::int64_t id, std::string_view owner, std::int64_t now_ms);
  /// Makes the lease of a PROCESSING record run at least until `expires_at_ms` (lease time); only
  /// its owner may, and a lease is never shortened.
  bool extend_lease(std::int64_t id, std::string_view owner, std::int64_t expires_at_ms);
  /// Deletes a COMPLETED record whose expires_at <= now (used so an expired record counts as
  /// absent before the reaper gets to it). True if it deleted one.
  bool delete_if_expired(std::int64_t id, std::int64_t now_ms);
  /// Deletes every COMPLETED record with expires_at <= now; returns how many. PROCESSING
  /// records are never purged.
  std::int64_t purge_expired(std::int64_t now_ms);
  /// At start-up: every PROCESSING record's lease is set to 0 (expired), since their executors
  /// died with the previous process. Returns how many.
  std::int64_t expire_all_leases();
  /// Records stored. Kept in memory (O(1)): counted from the table once (load_count(), or the
  /// first call), then followed by this store's inserts and deletes as their transactions commit.
  [[nodiscard]] std::int64_t count();
  /// Counts the table again (at start-up, after the tables were wiped). Outside a transaction.
  void load_count();

 private:
  /// Follows a committed change of `delta` rows (nothing while the count is not loaded yet).
  void rows_changed(std::int64_t delta);

  database& db_;
  std::optional<std::int64_t> count_;
};

}  // namespace idem::mock
