#include "mock_server/operation.hpp"

namespace idem::mock {

execution_result run_operation(server_state& state, execution& exec) {
  switch (exec.route) {
    case route_id::create_order:
      return create_order(state, exec);
    case route_id::pay_order:
      return pay_order(state, exec);
    case route_id::cancel_order:
      return cancel_order(state, exec);
    default:
      throw std::logic_error("run_operation: not an idempotent route");
  }
}

namespace op {

stored_response to_stored(const response& res) {
  stored_response out{.status = res.status, .headers = {}, .body = res.body};
  for (const auto& [name, value] : res.headers) {
    if (iequals(name, "Location") || iequals(name, "Content-Type")) {
      out.headers.emplace_back(name, value);
    }
  }
  return out;
}

execution_result finish(server_state& state, const execution& exec, transaction& txn,
                        const response& res) {
  if (exec.crash) return {.end = execution_end::abandoned, .response = {}};
  auto stored = to_stored(res);
  auto now = state.clock.now_ms();
  if (!state.records.complete(exec.record_id, exec.owner, stored, now,
                              now + state.options.key_ttl.count())) {
    return {.end = execution_end::lost_lease, .response = {}};
  }
  txn.commit();
  return {.end = execution_end::completed, .response = std::move(stored)};
}

bool provider_call_times_out(server_state& state, const execution& exec) {
  auto rule = state.faults.pick(fault_stage::provider, exec.method, exec.route_template, exec.path);
  if (!rule) return false;
  state.stats.increment("faults_injected");
  return true;
}

}  // namespace op
}  // namespace idem::mock
