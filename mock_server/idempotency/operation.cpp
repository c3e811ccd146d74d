#include "mock_server/idempotency/operation.hpp"

#include "mock_server/state/server_state.hpp"

#include <algorithm>
#include <iostream>

#include "mock_server/http/problem.hpp"

namespace idem::mock {

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
  if (!state.records.complete(exec.record_id, exec.owner, stored, state.clock.lease_now_ms(),
                              state.clock.now_ms() + state.options.key_ttl.count())) {
    return {.end = execution_end::lost_lease, .response = {}};
  }
  if (exec.settling) state.stats.increment_in_transaction("abandoned_settled");
  txn.commit();
  return {.end = execution_end::completed, .response = std::move(stored)};
}

bool provider_call_times_out(server_state& state, const execution& exec) {
  if (exec.settling) return false;
  auto rule = state.faults.pick(fault_stage::provider, exec.method, exec.route_template, exec.path);
  if (!rule) return false;
  state.stats.increment("faults_injected");
  return true;
}

response in_progress(server_state& state, std::int64_t lease_expires_at_ms,
                     const std::string& request_id, std::string detail) {
  const auto left_ms = lease_expires_at_ms - state.clock.lease_now_ms();
  const auto retry_after = std::clamp<std::int64_t>(left_ms / 1000 + (left_ms % 1000 > 0), 1, 5);
  auto res = make_problem(409, "idempotency-request-in-progress", std::move(detail),
                          {{"request_id", request_id}});
  res.set_header("Retry-After", std::to_string(retry_after));
  state.stats.increment("in_progress_conflicts");
  return res;
}

void give_up(server_state& state, const execution& exec) noexcept {
  try {
    if (exec.recovery_point.empty()) {
      state.records.release(exec.record_id, exec.owner);
    } else {
      state.records.expire_lease(exec.record_id, exec.owner, state.clock.lease_now_ms());
    }
  } catch (const std::exception& e) {
    std::cerr << "idem-mock-server: could not give up record: " << e.what() << '\n';
  }
}

}  // namespace op
}  // namespace idem::mock
