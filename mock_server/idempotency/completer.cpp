#include "mock_server/idempotency/completer.hpp"

#include "mock_server/state/server_state.hpp"

#include <iostream>
#include <optional>

#include "mock_server/http/route.hpp"
#include "mock_server/idempotency/operation.hpp"

namespace idem::mock {

namespace {

std::optional<execution> execution_from_record(const idempotency_record& r) {
  if (r.request.empty()) return std::nullopt;
  auto request = nlohmann::json::parse(r.request, nullptr, /*allow_exceptions=*/false);
  if (!request.is_object() || !request.contains("path") || !request["path"].is_string() ||
      !request.contains("body")) {
    return std::nullopt;
  }
  const std::string path = request["path"].get<std::string>();
  auto route = match_route("POST", path);
  if (route.status != route_status::found) return std::nullopt;
  return execution{
      .record_id = r.id,
      .owner = {},
      .request_id = r.request_id,
      .principal = r.scope.principal,
      .key = r.scope.key,
      .route = route.id,
      .method = "POST",
      .route_template = std::string{route.route_template},
      .path = path,
      .resource_param = route.param,
      .body = std::move(request["body"]),
      .recovery_point = r.recovery_point,
      .takeover = true,
      .crash = false,
      .settling = true,
  };
}

}  // namespace

std::string request_for_completer(std::string_view path, const nlohmann::json& body) {
  return nlohmann::json{{"path", path}, {"body", body}}.dump();
}

settle_outcome settle_abandoned(server_state& state, std::int64_t record_id) {
  auto record = state.records.find_by_id(record_id);
  if (!record || record->state == record_state::completed) return settle_outcome::gone;
  const auto lease_now = state.clock.lease_now_ms();
  if (record->lease_expires_at_ms > lease_now) return settle_outcome::running;
  auto exec = execution_from_record(*record);
  if (!exec) return settle_outcome::unknown_request;
  exec->owner = state.next_lease_owner();
  if (!state.records.take_over(record->id, record->lease_owner, exec->owner, lease_now,
                               state.lease_expiry_from_now())) {
    return settle_outcome::running;
  }
  execution_result result;
  try {
    result = run_operation(state, *exec);
  } catch (...) {
    op::give_up(state, *exec);
    throw;
  }
  if (result.end == execution_end::order_busy) {
    // Another payment of the order is still charging: try again on a later round.
    state.records.expire_lease(exec->record_id, exec->owner, state.clock.lease_now_ms());
    return settle_outcome::running;
  }
  // abandoned_settled was counted in the completing transaction (op::finish).
  if (result.end != execution_end::completed) return settle_outcome::running;
  state.signals.notify(record_id);
  return settle_outcome::settled;
}

std::size_t complete_abandoned(server_state& state, std::size_t limit) {
  std::size_t settled = 0;
  for (const auto& record : state.records.abandoned(state.clock.lease_now_ms(), limit)) {
    try {
      if (settle_abandoned(state, record.id) == settle_outcome::settled) ++settled;
    } catch (const sqlite_error& e) {
      // Another process holds the database's lock: the other records would meet it too. The
      // next round tries again; the log is not told every round.
      if (e.busy()) break;
      std::cerr << "idem-mock-server: completer could not settle record " << record.id << ": "
                << e.what() << '\n';
    } catch (const std::exception& e) {
      std::cerr << "idem-mock-server: completer could not settle record " << record.id << ": "
                << e.what() << '\n';
    }
  }
  return settled;
}

}  // namespace idem::mock
