// POST /v1/orders/{id}/payments. The charge goes through the mock provider under a provider key
// derived from the record's request_id, so a takeover after a crash or a provider timeout asks
// the provider what happened before it would charge, and never charges twice.
#include "mock_server/ids.hpp"
#include "mock_server/operation.hpp"
#include "mock_server/problem.hpp"

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
  if (res.status == 409) state.stats.increment("invalid_state_transitions");
  return op::finish(state, exec, txn, res);
}

}  // namespace

execution_result pay_order(server_state& state, execution& exec) {
  const auto amount = exec.body.at("amount_minor").get<std::int64_t>();
  const auto currency = exec.body.at("currency").get<std::string>();
  const auto method = exec.body.at("payment_method").get<std::string>();
  const auto pk = provider_key(exec);

  // A takeover first asks the provider whether the crashed executor already charged.
  auto charge = state.provider.find(pk);
  if (!charge) {
    auto o = state.orders.find_order(exec.principal, exec.resource_param);
    if (!o) return finish_without_charge(state, exec, not_found(exec));
    if (o->status != "CREATED") return finish_without_charge(state, exec, invalid_state(o->status));

    if (!state.records.set_recovery_point(exec.record_id, exec.owner, charging, o->id)) {
      return {.end = execution_end::lost_lease, .response = {}};
    }
    exec.recovery_point = charging;
    const bool times_out = op::provider_call_times_out(state, exec);
    charge = state.provider.charge(pk, o->id, amount, currency, method, state.clock.now_ms());
    if (times_out) return {.end = execution_end::provider_timeout, .response = {}};
  }
  if (exec.crash) return {.end = execution_end::abandoned, .response = {}};

  if (!charge->captured) {
    transaction txn{state.db};
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

  // The order moved on (another key paid or cancelled it) after our charge: give the money back
  // and store the conflict. The refund key is stable too, so a retried refund is a no-op.
  state.provider.refund("rf_" + exec.request_id, charge->charge_id, state.clock.now_ms());
  auto current = state.orders.find_order(exec.principal, exec.resource_param);
  return finish_without_charge(state, exec, invalid_state(current ? current->status : "gone"));
}

}  // namespace idem::mock
