#pragma once
// One execution of an idempotent POST by the executor that holds its record's lease, and the
// three business operations behind the Orders API. Operations run synchronously on the event-loop
// thread, so an operation's state check, provider call and commit are never interleaved with
// another request's: that is what serialises two payments of one order (contract section 3).

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "mock_server/http/http_message.hpp"
#include "mock_server/http/route.hpp"
#include "mock_server/storage/order_store.hpp"
#include "mock_server/storage/record_store.hpp"

namespace idem::mock {

struct server_state;  // state/server_state.hpp

/// What the executor knows about the record it executes.
struct execution {
  std::int64_t record_id = 0;
  std::string owner;       ///< our lease-owner name
  std::string request_id;  ///< stable across takeovers: the provider keys derive from it
  std::string principal;
  std::string key;
  route_id route = route_id::create_order;
  std::string method;
  std::string route_template;
  std::string path;
  std::string resource_param;  ///< the {id} of the path, if any
  nlohmann::json body;
  std::string recovery_point;  ///< where a takeover resumes ("" = from the start)
  bool takeover = false;
  /// `crash_during_processing` fired: do the work up to (and including) provider calls, then
  /// abandon the record without completing it.
  bool crash = false;
  /// Run by the completer, not for a request: no fault is injected into it.
  bool settling = false;
};

enum class execution_end {
  completed,         ///< the record is COMPLETED with `response`
  abandoned,         ///< crash fault: record left PROCESSING with its lease running
  provider_timeout,  ///< the provider call timed out: lease expired, 504, nothing stored
  lost_lease,        ///< another executor took the record over: our work rolled back
  /// Another payment of the same order is still charging (its executor holds a live lease):
  /// nothing was done, the caller releases the record and answers `response` (a 409 in
  /// progress, not stored).
  order_busy,
};

struct execution_result {
  execution_end end = execution_end::completed;
  stored_response response;
};

// The Orders API, as this layer calls it: declared here, defined in orders/ (order_routes.cpp
// and one file per operation), so that the layer never includes what it runs.

/// The API's checks of a POST's JSON body before its record is touched (contract section 4):
/// nullopt when the request may go on, else the `400 validation-failed` to answer (not stored).
[[nodiscard]] std::optional<response> check_body(server_state& state, route_id route,
                                                 const std::string& principal,
                                                 const std::string& resource_param,
                                                 const nlohmann::json& body);

/// The part of a body that passed check_body() which the route's operation reads, and nothing
/// else: the execution (and, for the completer, the record) gets this, never the client's unknown
/// fields, which would otherwise be stored (in the order, in the record's request) for good.
/// The fingerprint is still taken over the whole body.
[[nodiscard]] nlohmann::json operation_input(route_id route, const nlohmann::json& body);

/// Runs the operation of `exec.route`. Throws (sqlite_error, ...) on storage failures; the
/// caller then releases or expires the lease.
[[nodiscard]] execution_result run_operation(server_state& state, execution& exec);

// The operations, one per file.
[[nodiscard]] execution_result create_order(server_state& state, execution& exec);
/// create_order in the caller's open transaction (the one that claimed the key), which it commits
/// when the record completes: claim, order and completion then cost one commit.
[[nodiscard]] execution_result create_order_in(server_state& state, execution& exec,
                                               transaction& txn);
[[nodiscard]] execution_result pay_order(server_state& state, execution& exec);
[[nodiscard]] execution_result cancel_order(server_state& state, execution& exec);

/// Helpers shared by the operations.
namespace op {
/// A response worth storing: keeps only Location and Content-Type.
[[nodiscard]] stored_response to_stored(const response& res);
/// Completes the record inside `txn` and commits; `lost_lease` (rolling back) when we no longer
/// own the record, `abandoned` (rolling back) when the crash fault fired. Counts
/// `abandoned_settled` in `txn` when the completer runs the execution.
[[nodiscard]] execution_result finish(server_state& state, const execution& exec, transaction& txn,
                                      const response& res);
/// Asks the fault injector whether the provider call about to happen times out (never for the
/// completer).
[[nodiscard]] bool provider_call_times_out(server_state& state, const execution& exec);
/// `409 idempotency-request-in-progress` (not stored) for a record whose lease runs until
/// `lease_expires_at_ms` (lease time): `Retry-After` is the time left, rounded up, clamped to
/// 1-5 s. Counts `in_progress_conflicts`.
[[nodiscard]] response in_progress(server_state& state, std::int64_t lease_expires_at_ms,
                                   const std::string& request_id, std::string detail);
/// Before a payment or a cancel acts on a CREATED order that another payment record has
/// reserved: settles that payment if its lease expired (completer) and returns nullopt so the
/// caller re-reads the order; while its executor still runs, returns `order_busy` with the 409 to
/// answer.
[[nodiscard]] std::optional<execution_result> settle_payment_in_the_way(server_state& state,
                                                                        const execution& exec,
                                                                        const order& o);
/// After an unexpected failure (a throw): frees the key when nothing happened yet, otherwise
/// expires the lease so that the next request or the completer resumes from the recovery point.
void give_up(server_state& state, const execution& exec) noexcept;
}  // namespace op

}  // namespace idem::mock
