// POST /v1/orders/{id}/payments. The charge goes through the mock provider under a provider key
// derived from the record's request_id, so a takeover after a crash or a provider timeout asks
// the provider what happened before it would charge, and never charges twice.
//
// Payments of one order are serialised across keys (contract section 3): before charging, a
// payment reserves the order (orders.paying_record_id) in the same transaction that records its
// recovery point, and the reservation ends with the order's next state change or a decline. A
// second payment that finds the order reserved settles the holder first (the completer's work:
// the holder's charge is kept or refunded, never repeated), or, while the holder's executor still
// runs, answers 409 in progress. Without it, a payment whose charge timed out (504, unresolved)
// and a second key's payment would both charge the order.
#include "mock_server/http/problem.hpp"
#include "mock_server/idempotency/completer.hpp"
#include "mock_server/idempotency/operation.hpp"
#include "mock_server/state/server_state.hpp"
#include "mock_server/storage/ids.hpp"

namespace idem::mock {
namespace {

constexpr std::string_view charging = "charging";

std::string provider_key(const execution& exec) {
  return "pk_" + exec.request_id;
}

response not_found(const execution& exec) {
  return make_problem(404, "not-found", "order '" + exec.resource_param + "' does not exist");
}

response invalid_state(std::string_view status) {
  return make_problem(409, "invalid-state-transition",
                      "the order is " + std::string{status} + "; only a CREATED order can be paid",
                      {{"order_status", status}});
}

// A definite answer reached before anything was charged.
execution_result finish_without_charge(server_state& state, execution& exec, const response& res) {
  transaction txn{state.db};
  if (res.status == 409) state.stats.increment_in_transaction("invalid_state_transitions");
  return op::finish(state, exec, txn, res);
}

// Claims the order for this payment, together with the recovery point that makes a takeover ask
// the provider before charging. False when the lease was lost.
bool start_charging(server_state& state, execution& exec, const order& o) {
  transaction txn{state.db};
  if (!state.records.set_recovery_point(exec.record_id, exec.owner, charging, o.id)) return false;
  if (!state.orders.reserve_payment(o.id, exec.record_id)) {
    throw std::logic_error("pay_order: the order was reserved while this execution held it");
  }
  txn.commit();
  exec.recovery_point = charging;
  return true;
}

// Whether a CAPTURED payment of the order stands on this charge.
bool charge_backs_a_payment(server_state& state, std::string_view order_id,
                            std::string_view charge_id) {
  for (const auto& p : state.orders.payments_of(order_id)) {
    if (p.status == "CAPTURED" && p.provider_charge_id == charge_id) return true;
  }
  return false;
}

}  // namespace

std::optional<execution_result> op::settle_payment_in_the_way(server_state& state,
                                                              const execution& exec,
                                                              const order& o) {
  if (!o.paying_record_id || *o.paying_record_id == exec.record_id) return std::nullopt;
  switch (settle_abandoned(state, *o.paying_record_id)) {
    case settle_outcome::settled:
      return std::nullopt;
    case settle_outcome::gone: {
      // The holder completed or was released without a state change: a stale reservation.
      transaction txn{state.db};
      state.orders.release_payment(o.id, *o.paying_record_id);
      txn.commit();
      return std::nullopt;
    }
    case settle_outcome::running:
    case settle_outcome::unknown_request:
      break;
  }
  auto holder = state.records.find_by_id(*o.paying_record_id);
  auto busy = op::in_progress(state, holder ? holder->lease_expires_at_ms : 0,
                              holder ? holder->request_id : std::string{},
                              "another payment of this order is still being processed");
  return execution_result{
      .end = execution_end::order_busy,
      .response = {
          .status = busy.status, .headers = std::move(busy.headers), .body = std::move(busy.body)}};
}

execution_result pay_order(server_state& state, execution& exec) {
  const auto pk = provider_key(exec);

  // A takeover first asks the provider whether the crashed executor already charged.
  auto charge = state.provider.find(pk);
  if (!charge) {
    auto o = state.orders.find_order(exec.principal, exec.resource_param);
    if (o && o->status == "CREATED") {
      if (auto busy = op::settle_payment_in_the_way(state, exec, *o)) return std::move(*busy);
      o = state.orders.find_order(exec.principal, exec.resource_param);  // it may be PAID now
    }
    if (!o) return finish_without_charge(state, exec, not_found(exec));
    if (o->status != "CREATED") return finish_without_charge(state, exec, invalid_state(o->status));

    if (!start_charging(state, exec, *o)) return {.end = execution_end::lost_lease, .response = {}};
    const bool times_out = op::provider_call_times_out(state, exec);
    charge = state.provider.charge(pk, o->id, exec.body.at("amount_minor").get<std::int64_t>(),
                                   exec.body.at("currency").get<std::string>(),
                                   exec.body.at("payment_method").get<std::string>(),
                                   state.clock.now_ms());
    if (times_out) return {.end = execution_end::provider_timeout, .response = {}};
  }
  if (exec.crash) return {.end = execution_end::abandoned, .response = {}};

  if (!charge->captured) {
    transaction txn{state.db};
    state.orders.release_payment(exec.resource_param, exec.record_id);
    return op::finish(state, exec, txn,
                      make_problem(402, "payment-declined", "the payment method was declined",
                                   {{"decline_code", "card_declined"}}));
  }

  {
    transaction txn{state.db};
    if (state.orders.transition(exec.resource_param, "CREATED", "PAID")) {
      payment p{
          .id = random_id("pay"),
          .order_id = exec.resource_param,
          .amount_minor = charge->amount_minor,
          .currency = charge->currency,
          .status = "CAPTURED",
          .provider_charge_id = charge->charge_id,
          .created_at_ms = state.clock.now_ms(),
      };
      state.orders.insert_payment(p);
      return op::finish(state, exec, txn, make_json(201, to_json(p)));
    }
  }

  // The order moved on (cancelled while our charge was unresolved) after our charge: give the
  // money back and store the conflict. The refund key is stable too, so a retried refund is a
  // no-op. A charge that a CAPTURED payment stands on is never refunded here: that payment is
  // this very execution's, completed by an executor that took our record over.
  auto current = state.orders.find_order(exec.principal, exec.resource_param);
  if (current && charge_backs_a_payment(state, current->id, charge->charge_id)) {
    return {.end = execution_end::lost_lease, .response = {}};
  }
  state.provider.refund("rf_" + exec.request_id, charge->charge_id, state.clock.now_ms());
  return finish_without_charge(state, exec, invalid_state(current ? current->status : "gone"));
}

}  // namespace idem::mock
