#include "mock_server/orders/tenant_api.hpp"

#include "mock_server/state/server_state.hpp"

#include "mock_server/http/canonical_json.hpp"
#include "mock_server/http/problem.hpp"

namespace idem::mock {
namespace {

response get_order(server_state& state, const route_match& route, const std::string& principal) {
  auto o = state.orders.find_order(principal, route.param);
  if (!o) return make_problem(404, "not-found", "order '" + route.param + "' does not exist");
  return make_json(200, to_json(*o, state.orders.payments_of(o->id)));
}

response list_orders(server_state& state, const request& req, const std::string& principal) {
  auto merchant_order_id = query_param(req.query(), "merchant_order_id");
  if (!merchant_order_id || merchant_order_id->empty()) {
    return make_problem(
        400, "validation-failed", "merchant_order_id is required",
        {{"errors",
          nlohmann::json::array({{{"field", "merchant_order_id"}, {"message", "is required"}}})}});
  }
  auto data = nlohmann::json::array();
  if (auto o = state.orders.find_by_merchant_order_id(principal, *merchant_order_id)) {
    data.push_back(to_json(*o, state.orders.payments_of(o->id)));
  }
  return make_json(200, {{"data", std::move(data)}});
}

response get_request(server_state& state, const route_match& route, const std::string& principal) {
  auto record = state.records.find_by_request_id(principal, route.param);
  const bool expired = record && record->state == record_state::completed &&
                       record->expires_at_ms.value_or(0) <= state.clock.now_ms();
  if (!record || expired) {
    return make_problem(404, "not-found", "request '" + route.param + "' does not exist");
  }
  nlohmann::json body{{"request_id", record->request_id}};
  if (record->state == record_state::completed && record->response) {
    auto parsed = parse_json(record->response->body);
    body["state"] = "COMPLETED";
    body["response"] = {{"status", record->response->status},
                        {"body", parsed ? *parsed : nlohmann::json(record->response->body)}};
  } else {
    body["state"] = "PROCESSING";
    body["response"] = nullptr;
  }
  return make_json(200, body);
}

}  // namespace

response handle_tenant_get(server_state& state, const request& req, const route_match& route,
                           const std::string& principal) {
  switch (route.id) {
    case route_id::get_order:
      return get_order(state, route, principal);
    case route_id::list_orders:
      return list_orders(state, req, principal);
    case route_id::get_request:
      return get_request(state, route, principal);
    default:
      return make_problem(404, "not-found", "no such resource");
  }
}

}  // namespace idem::mock
