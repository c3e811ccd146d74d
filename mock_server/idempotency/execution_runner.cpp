#include "mock_server/idempotency/execution_runner.hpp"

#include "mock_server/state/server_state.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <iostream>

#include "mock_server/http/problem.hpp"

namespace idem::mock {

namespace asio = boost::asio;

namespace {

response with_replay_marker(const stored_response& stored) {
  response res{.status = stored.status, .headers = stored.headers, .body = stored.body};
  res.set_header("Idempotent-Replayed", "true");
  return res;
}

// Someone (a retry, the completer) took our record over: tell the client what the record says
// now. By record id, never by (principal, operation, key): after a purge that scope can name a
// newer request, whose answer is not ours to give.
reply after_lost_lease(server_state& state, const execution& exec) {
  auto record = state.records.find_by_id(exec.record_id);
  if (record && record->state == record_state::completed && record->response) {
    return reply{.res = with_replay_marker(*record->response)};
  }
  if (record) {
    return reply{.res = op::in_progress(state, record->lease_expires_at_ms, record->request_id,
                                        "a request with this Idempotency-Key is still being "
                                        "processed")};
  }
  return reply{.res = make_problem(500, "internal",
                                   "the answer of this request expired before it could be sent")};
}

reply after_commit(server_state& state, const execution& exec, const stored_response& stored) {
  response res{.status = stored.status, .headers = stored.headers, .body = stored.body};
  res.set_header("Idempotent-Replayed", "false");
  reply out{.res = std::move(res)};
  auto rule =
      state.faults.pick(fault_stage::after_commit, exec.method, exec.route_template, exec.path);
  if (!rule) return out;
  state.stats.increment("faults_injected");
  switch (rule->fault) {
    case fault_kind::drop_response_after_commit:
      out.how = delivery::reset;
      out.close = true;
      break;
    case fault_kind::status_after_commit:
      out.res = make_problem(rule->status, rule->status == 500 ? "internal" : "unavailable",
                             "injected fault: status after commit");
      break;
    case fault_kind::stall_after_commit:
      out.how = delivery::stall;
      out.stall_for = rule->delay;
      break;
    default:
      break;
  }
  return out;
}

}  // namespace

reply reply_for(server_state& state, const execution& exec, execution_result& result) {
  switch (result.end) {
    case execution_end::completed:
      return after_commit(state, exec, result.response);
    case execution_end::abandoned:
      return reply{.res = {}, .how = delivery::reset, .stall_for = {}, .close = true};
    case execution_end::provider_timeout: {
      state.records.expire_lease(exec.record_id, exec.owner, state.clock.lease_now_ms());
      auto res = make_problem(504, "unavailable", "the payment provider did not answer in time");
      res.set_header("Retry-After", "1");
      return reply{.res = std::move(res)};
    }
    case execution_end::lost_lease:
      return after_lost_lease(state, exec);
    case execution_end::order_busy:
      // Nothing happened under this key: it is free again, and the 409 says "try later".
      state.records.release(exec.record_id, exec.owner);
      return reply{.res = {.status = result.response.status,
                           .headers = std::move(result.response.headers),
                           .body = std::move(result.response.body)}};
  }
  return reply{.res = make_problem(500, "internal", "unknown end of an execution")};
}

std::optional<fault_rule> execution_fault(server_state& state, const execution& exec) {
  auto rule =
      state.faults.pick(fault_stage::execution, exec.method, exec.route_template, exec.path);
  if (rule) state.stats.increment("faults_injected");
  return rule;
}

void hold_lease_through(server_state& state, const execution& exec,
                        const std::optional<fault_rule>& fault) {
  if (!fault || fault->fault != fault_kind::hold_in_processing) return;
  state.records.extend_lease(exec.record_id, exec.owner,
                             state.lease_expiry_from_now() + fault->delay.count());
}

asio::awaitable<void> run_execution(server_state& state, std::shared_ptr<execution_task> task,
                                    std::optional<fault_rule> fault) {
  auto& exec = task->exec;
  if (auto& rule = fault) {
    // A timer on the event loop: the thread serves every other request meanwhile. A server that
    // stops or dies here leaves the record PROCESSING as claimed, nothing done; start-up expires
    // its lease and the next request with the key takes it over and executes it.
    if (rule->fault == fault_kind::delay || rule->fault == fault_kind::hold_in_processing) {
      asio::steady_timer timer{co_await asio::this_coro::executor, rule->delay};
      boost::system::error_code ec;
      co_await timer.async_wait(asio::redirect_error(asio::use_awaitable, ec));
    } else if (rule->fault == fault_kind::crash_during_processing) {
      exec.crash = true;
    }
  }
  try {
    // A slow executor (delay fault, or a hold outrun by an advanced clock) may have lost its
    // lease meanwhile: it must not act at all, not even ask the provider to refund what the new
    // owner charged under the same key.
    auto result = state.records.is_owner(exec.record_id, exec.owner)
                      ? run_operation(state, exec)
                      : execution_result{.end = execution_end::lost_lease, .response = {}};
    task->result = reply_for(state, exec, result);
  } catch (const std::exception& e) {
    // A database locked by another process (no statement waits for it: server_state.cpp) may
    // stop an execution between two of its commits, e.g. after the provider charged. Nothing is
    // lost or done twice: each step committed whole or not at all, and the record stays
    // PROCESSING at its recovery point. give_up frees the key or expires the lease, and if the
    // lock stops that too, the lease runs out by itself; either way the next retry with the key
    // (or the completer) takes the record over and asks the provider by the stable provider key
    // before charging. The answer says "retry", as a 500 would: the client keeps its key.
    const auto* db = dynamic_cast<const sqlite_error*>(&e);
    const bool locked = db != nullptr && db->busy();
    if (!locked) std::cerr << "idem-mock-server: execution failed: " << e.what() << '\n';
    op::give_up(state, exec);
    task->result = reply{
        .res = locked ? make_problem(503, "unavailable",
                                     "the database is locked by another process; the request may "
                                     "have started: retry with the same Idempotency-Key")
                      : make_problem(500, "internal", "the server failed to store the result")};
    if (locked) task->result->res.set_header("Retry-After", "1");
  }
  state.signals.notify(exec.record_id);
}

}  // namespace idem::mock
