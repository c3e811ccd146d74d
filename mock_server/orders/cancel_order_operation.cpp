// POST /v1/orders/{id}/cancel. A CREATED order is cancelled by a conditional update; a PAID one is
// refunded through the provider first (refund key derived from the record's request_id, so a
// takeover repeats the refund harmlessly), then cancelled. A CREATED order with a payment whose
// charge is unresolved waits for that payment to settle first.
#include "mock_server/http/problem.hpp"
#include "mock_server/idempotency/operation.hpp"
#include "mock_server/state/server_state.hpp"

namespace idem::mock {
namespace {

constexpr std::string_view refunding = "refunding";

execution_result finish_conflict(server_state& state, execution& exec, std::string_view status) {
  transaction txn{state.db};
  state.stats.increment_in_transaction("invalid_state_transitions");
  return op::finish(state, exec, txn,
                    make_problem(409, "invalid-state-transition",
                                 "the order is " + std::string{status} + " and cannot be cancelled",
                                 {{"order_status", status}}));
}

execution_result finish_cancelled(server_state& state, execution& exec, transaction& txn) {
  auto o = state.orders.find_order(exec.principal, exec.resource_param);
  return op::finish(state, exec, txn, make_json(200, to_json(*o, state.orders.payments_of(o->id))));
}

}  // namespace

execution_result cancel_order(server_state& state, execution& exec) {
  auto o = state.orders.find_order(exec.principal, exec.resource_param);
  if (o && o->status == "CREATED") {
    // A payment whose charge is unresolved decides first whether there is money to refund.
    if (auto busy = op::settle_payment_in_the_way(state, exec, *o)) return std::move(*busy);
    o = state.orders.find_order(exec.principal, exec.resource_param);
  }
  if (!o) {
    transaction txn{state.db};
    return op::finish(
        state, exec, txn,
        make_problem(404, "not-found", "order '" + exec.resource_param + "' does not exist"));
  }

  if (o->status == "CREATED") {
    transaction txn{state.db};
    if (state.orders.transition(o->id, "CREATED", "CANCELLED")) {
      return finish_cancelled(state, exec, txn);
    }
  }
  if (o->status != "PAID") return finish_conflict(state, exec, o->status);

  if (exec.recovery_point != refunding) {
    if (!state.records.set_recovery_point(exec.record_id, exec.owner, refunding, o->id)) {
      return {.end = execution_end::lost_lease, .response = {}};
    }
    exec.recovery_point = refunding;
  }
  const bool times_out = op::provider_call_times_out(state, exec);
  std::vector<std::string> refunded_payments;
  for (const auto& p : state.orders.payments_of(o->id)) {
    if (p.status != "CAPTURED") continue;
    state.provider.refund("rf_" + exec.request_id + "_" + p.id, p.provider_charge_id,
                          state.clock.now_ms());
    refunded_payments.push_back(p.id);
  }
  if (times_out) return {.end = execution_end::provider_timeout, .response = {}};
  if (exec.crash) return {.end = execution_end::abandoned, .response = {}};

  {
    transaction txn{state.db};
    if (state.orders.transition(o->id, "PAID", "CANCELLED")) {
      for (const auto& id : refunded_payments)
        state.orders.mark_refunded(id);
      return finish_cancelled(state, exec, txn);
    }
  }
  auto current = state.orders.find_order(exec.principal, exec.resource_param);
  return finish_conflict(state, exec, current ? current->status : "gone");
}

}  // namespace idem::mock
