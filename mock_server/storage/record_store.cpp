#include "mock_server/storage/record_store.hpp"

#include <nlohmann/json.hpp>
#include <stdexcept>

namespace idem::mock {

namespace {

constexpr std::string_view processing = "PROCESSING";
constexpr std::string_view completed = "COMPLETED";

// Column order read by read_record.
constexpr std::string_view select_columns =
    "SELECT id, principal, operation, idem_key, fingerprint, state, recovery_point, resource_id,"
    " response_status, response_headers, response_body, lease_owner, lease_expires_at,"
    " created_at, expires_at, request_id, request FROM idempotency_records ";

// A query over select_columns, built once (the statement cache then finds it without allocating).
std::string select_where(std::string_view condition) {
  return std::string{select_columns} + std::string{condition};
}

record_state parse_state(const std::string& text) {
  if (text == processing) return record_state::processing;
  if (text == completed) return record_state::completed;
  throw std::runtime_error("idempotency_records: unknown state '" + text + "'");
}

// Headers keep their order and duplicates: a JSON array of [name, value] pairs.
std::string headers_to_json(const header_list& headers) {
  return nlohmann::json(headers).dump();
}

header_list headers_from_json(const std::string& text) {
  if (text.empty()) return {};
  return nlohmann::json::parse(text).get<header_list>();
}

idempotency_record read_record(const statement& row) {
  idempotency_record r;
  r.id = row.int64(0);
  r.scope = {.principal = row.text(1), .operation = row.text(2), .key = row.text(3)};
  r.fingerprint = row.text(4);
  r.state = parse_state(row.text(5));
  r.recovery_point = row.text(6);
  r.resource_id = row.text(7);
  if (!row.is_null(8)) {
    r.response = stored_response{.status = static_cast<int>(row.int64(8)),
                                 .headers = headers_from_json(row.text(9)),
                                 .body = row.text(10)};
  }
  r.lease_owner = row.text(11);
  r.lease_expires_at_ms = row.int64(12);
  r.created_at_ms = row.int64(13);
  r.expires_at_ms = row.optional_int64(14);
  r.request_id = row.text(15);
  r.request = row.text(16);
  return r;
}

// Reads at most one record and resets the statement, so that no read snapshot stays open.
std::optional<idempotency_record> read_one(statement& stmt) {
  std::optional<idempotency_record> out;
  if (stmt.step()) out = read_record(stmt);
  stmt.reset();
  return out;
}

}  // namespace

bool record_store::try_claim(const claim_request& claim) {
  // The conflict target is the scope only: a clash on request_id is a bug and must throw, not
  // pass for "someone else holds this key".
  auto& stmt = db_.prepare(
      "INSERT INTO idempotency_records (principal, operation, idem_key, fingerprint, state,"
      " lease_owner, lease_expires_at, created_at, request_id, request)"
      " VALUES (?1, ?2, ?3, ?4, 'PROCESSING', ?5, ?6, ?7, ?8, ?9)"
      " ON CONFLICT (principal, operation, idem_key) DO NOTHING");
  stmt.bind(1, claim.scope.principal)
      .bind(2, claim.scope.operation)
      .bind(3, claim.scope.key)
      .bind(4, claim.fingerprint)
      .bind(5, claim.lease_owner)
      .bind(6, claim.lease_expires_at_ms)
      .bind(7, claim.now_ms)
      .bind(8, claim.request_id)
      .bind(9, claim.request)
      .run();
  if (db_.changes() != 1) return false;
  rows_changed(1);
  return true;
}

std::optional<idempotency_record> record_store::claim(const claim_request& claim) {
  if (!try_claim(claim)) return std::nullopt;
  idempotency_record r;
  r.id = db_.last_insert_rowid();
  r.scope = claim.scope;
  r.fingerprint = claim.fingerprint;
  r.state = record_state::processing;
  r.lease_owner = claim.lease_owner;
  r.lease_expires_at_ms = claim.lease_expires_at_ms;
  r.created_at_ms = claim.now_ms;
  r.request_id = claim.request_id;
  r.request = claim.request;
  return r;
}

std::optional<idempotency_record> record_store::find(const record_scope& scope) {
  static const auto sql = select_where("WHERE principal = ?1 AND operation = ?2 AND idem_key = ?3");
  auto& stmt = db_.prepare(sql);
  stmt.bind(1, scope.principal).bind(2, scope.operation).bind(3, scope.key);
  return read_one(stmt);
}

std::optional<idempotency_record> record_store::find_by_id(std::int64_t id) {
  static const auto sql = select_where("WHERE id = ?1");
  auto& stmt = db_.prepare(sql);
  stmt.bind(1, id);
  return read_one(stmt);
}

std::vector<idempotency_record> record_store::abandoned(std::int64_t lease_now_ms,
                                                        std::size_t limit) {
  static const auto sql = select_where(
      "WHERE state = 'PROCESSING' AND lease_expires_at <= ?1 AND request <> ''"
      " ORDER BY id LIMIT ?2");
  auto& stmt = db_.prepare(sql);
  stmt.bind(1, lease_now_ms).bind(2, static_cast<std::int64_t>(limit));
  std::vector<idempotency_record> out;
  while (stmt.step()) {
    out.push_back(read_record(stmt));
  }
  stmt.reset();
  return out;
}

std::optional<idempotency_record> record_store::find_by_request_id(std::string_view principal,
                                                                   std::string_view request_id) {
  static const auto sql = select_where("WHERE request_id = ?1 AND principal = ?2");
  auto& stmt = db_.prepare(sql);
  stmt.bind(1, request_id).bind(2, principal);
  return read_one(stmt);
}

bool record_store::take_over(std::int64_t id, std::string_view expected_owner,
                             std::string_view new_owner, std::int64_t now_ms,
                             std::int64_t new_lease_expires_at_ms) {
  // Every condition the caller saw when it decided to take over is re-checked in the UPDATE
  // itself: of two contenders that saw the same expired lease, exactly one wins.
  auto& stmt = db_.prepare(
      "UPDATE idempotency_records SET lease_owner = ?1, lease_expires_at = ?2"
      " WHERE id = ?3 AND state = 'PROCESSING' AND lease_owner = ?4 AND lease_expires_at <= ?5");
  stmt.bind(1, new_owner)
      .bind(2, new_lease_expires_at_ms)
      .bind(3, id)
      .bind(4, expected_owner)
      .bind(5, now_ms)
      .run();
  return db_.changes() == 1;
}

bool record_store::set_recovery_point(std::int64_t id, std::string_view owner,
                                      std::string_view point, std::string_view resource_id) {
  auto& stmt = db_.prepare(
      "UPDATE idempotency_records SET recovery_point = ?1, resource_id = ?2"
      " WHERE id = ?3 AND state = 'PROCESSING' AND lease_owner = ?4");
  stmt.bind(1, point).bind(2, resource_id).bind(3, id).bind(4, owner).run();
  return db_.changes() == 1;
}

bool record_store::complete(std::int64_t id, std::string_view owner,
                            const stored_response& response, std::int64_t now_ms,
                            std::int64_t expires_at_ms) {
  // The lease ends with the execution: lease_expires_at records when that was. The request was
  // kept for the completer only; a replay needs the response and the fingerprint alone.
  auto& stmt = db_.prepare(
      "UPDATE idempotency_records SET state = 'COMPLETED', response_status = ?1,"
      " response_headers = ?2, response_body = ?3, lease_expires_at = ?4, expires_at = ?5,"
      " request = ''"
      " WHERE id = ?6 AND state = 'PROCESSING' AND lease_owner = ?7");
  stmt.bind(1, response.status)
      .bind(2, headers_to_json(response.headers))
      .bind(3, response.body)
      .bind(4, now_ms)
      .bind(5, expires_at_ms)
      .bind(6, id)
      .bind(7, owner)
      .run();
  return db_.changes() == 1;
}

bool record_store::is_owner(std::int64_t id, std::string_view owner) {
  auto& stmt = db_.prepare(
      "SELECT 1 FROM idempotency_records"
      " WHERE id = ?1 AND state = 'PROCESSING' AND lease_owner = ?2");
  stmt.bind(1, id).bind(2, owner);
  const bool owns = stmt.step();
  stmt.reset();
  return owns;
}

bool record_store::release(std::int64_t id, std::string_view owner) {
  auto& stmt = db_.prepare(
      "DELETE FROM idempotency_records"
      " WHERE id = ?1 AND state = 'PROCESSING' AND lease_owner = ?2");
  stmt.bind(1, id).bind(2, owner).run();
  if (db_.changes() != 1) return false;
  rows_changed(-1);
  return true;
}

bool record_store::expire_lease(std::int64_t id, std::string_view owner, std::int64_t now_ms) {
  // MIN: expiring a lease must never lengthen one that had already run out.
  auto& stmt = db_.prepare(
      "UPDATE idempotency_records SET lease_expires_at = MIN(lease_expires_at, ?1)"
      " WHERE id = ?2 AND state = 'PROCESSING' AND lease_owner = ?3");
  stmt.bind(1, now_ms).bind(2, id).bind(3, owner).run();
  return db_.changes() == 1;
}

bool record_store::extend_lease(std::int64_t id, std::string_view owner,
                                std::int64_t expires_at_ms) {
  auto& stmt = db_.prepare(
      "UPDATE idempotency_records SET lease_expires_at = MAX(lease_expires_at, ?1)"
      " WHERE id = ?2 AND state = 'PROCESSING' AND lease_owner = ?3");
  stmt.bind(1, expires_at_ms).bind(2, id).bind(3, owner).run();
  return db_.changes() == 1;
}

bool record_store::delete_if_expired(std::int64_t id, std::int64_t now_ms) {
  auto& stmt = db_.prepare(
      "DELETE FROM idempotency_records"
      " WHERE id = ?1 AND state = 'COMPLETED' AND expires_at <= ?2");
  stmt.bind(1, id).bind(2, now_ms).run();
  if (db_.changes() != 1) return false;
  rows_changed(-1);
  return true;
}

std::int64_t record_store::purge_expired(std::int64_t now_ms) {
  // state = 'COMPLETED' is what keeps PROCESSING records (expires_at NULL) out, however old.
  auto& stmt =
      db_.prepare("DELETE FROM idempotency_records WHERE state = 'COMPLETED' AND expires_at <= ?1");
  stmt.bind(1, now_ms).run();
  const auto purged = db_.changes();
  if (purged > 0) rows_changed(-purged);
  return purged;
}

std::int64_t record_store::expire_all_leases() {
  auto& stmt =
      db_.prepare("UPDATE idempotency_records SET lease_expires_at = 0 WHERE state = 'PROCESSING'");
  stmt.run();
  return db_.changes();
}

std::int64_t record_store::count() {
  // Inside a transaction the table holds what may still roll back: count it, keep nothing.
  if (db_.in_transaction()) return db_.single_int64("SELECT COUNT(*) FROM idempotency_records");
  if (!count_) load_count();
  return *count_;
}

void record_store::load_count() {
  count_ = db_.single_int64("SELECT COUNT(*) FROM idempotency_records");
}

void record_store::rows_changed(std::int64_t delta) {
  if (!count_) return;
  db_.after_commit([this, delta] {
    if (count_) *count_ += delta;
  });
}

}  // namespace idem::mock
