#pragma once
// Runs one claimed execution, detached from the request that started it (so that a client that
// hangs up does not stop it): the execution-stage fault, the operation, then the reply with the
// after-commit faults. The request that started it waits on the record's signal for the result.
// This is the split path, taken when the claim was committed on its own (a takeover, a payment or
// cancel, an execution-stage fault); a create without them runs in the claim's transaction.

#include <boost/asio/awaitable.hpp>
#include <memory>
#include <optional>

#include "mock_server/faults/fault_rules.hpp"
#include "mock_server/http/http_message.hpp"
#include "mock_server/idempotency/operation.hpp"

namespace idem::mock {

struct server_state;  // state/server_state.hpp

/// Shared between the execution and the request waiting for it.
struct execution_task {
  execution exec;
  std::optional<reply> result;  ///< set once the execution ended
};

/// Never throws: storage failures become `500 internal` with the key freed (nothing happened
/// yet) or the lease expired (after a side effect). Notifies the record's waiters at the end.
/// `fault` is the execution-stage fault the claim drew for it (delay, hold or crash), if any.
boost::asio::awaitable<void> run_execution(server_state& state,
                                           std::shared_ptr<execution_task> task,
                                           std::optional<fault_rule> fault);

/// Draws the execution-stage fault for an execution that is about to run (counted in
/// `faults_injected`).
[[nodiscard]] std::optional<fault_rule> execution_fault(server_state& state, const execution& exec);

/// For a `hold_in_processing` fault, in the claim's transaction before it commits: lengthens the
/// record's lease by the hold, so that it runs out no sooner than a lease taken when the hold
/// ends. Duplicates then meet a live lease (409 or a wait) for the whole hold, never an expired
/// one to take over; a `delay`, a slow executor, keeps its lease as claimed. Throws on storage
/// failures, like the claim.
void hold_lease_through(server_state& state, const execution& exec,
                        const std::optional<fault_rule>& fault);

/// The reply for an execution that ended with `result`: the stored response with
/// `Idempotent-Replayed: false` and the after-commit faults, or what each other end calls for.
[[nodiscard]] reply reply_for(server_state& state, const execution& exec, execution_result& result);

}  // namespace idem::mock
