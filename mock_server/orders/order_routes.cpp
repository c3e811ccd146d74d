// The Orders API as the idempotency layer calls it (idempotency/operation.hpp declares these):
// the checks of a POST's body before its record is touched, and the operation behind each
// route. The layer itself never names an order.
#include <initializer_list>
#include <stdexcept>
#include <vector>

#include "mock_server/http/problem.hpp"
#include "mock_server/idempotency/operation.hpp"
#include "mock_server/orders/order_validation.hpp"
#include "mock_server/state/server_state.hpp"

namespace idem::mock {

namespace {

response validation_failed(const std::vector<field_error>& errors) {
  return make_problem(400, "validation-failed", "the request body is not valid",
                      error_members(errors));
}

// A payment must be for the order's amount, in its currency. The order's amount and currency
// never change, so reading them before the claim is not check-then-insert. An unknown order is
// left to the execution (a stored 404).
std::vector<field_error> payment_matches_order(server_state& state, const std::string& principal,
                                               const std::string& order_id,
                                               const nlohmann::json& body) {
  auto o = state.orders.find_order(principal, order_id);
  if (!o) return {};
  std::vector<field_error> errors;
  if (body.at("amount_minor").get<std::int64_t>() != o->amount_minor) {
    errors.push_back({"amount_minor", "must equal the order's amount_minor (" +
                                          std::to_string(o->amount_minor) + ")"});
  }
  if (body.at("currency").get<std::string>() != o->currency) {
    errors.push_back({"currency", "must equal the order's currency (" + o->currency + ")"});
  }
  return errors;
}

std::vector<field_error> validate(route_id route, const nlohmann::json& body) {
  switch (route) {
    case route_id::create_order:
      return validate_create_order(body);
    case route_id::pay_order:
      return validate_payment(body);
    default:
      return validate_cancel(body);
  }
}

}  // namespace

std::optional<response> check_body(server_state& state, route_id route,
                                   const std::string& principal, const std::string& resource_param,
                                   const nlohmann::json& body) {
  if (auto errors = validate(route, body); !errors.empty()) {
    return validation_failed(errors);
  }
  if (route == route_id::pay_order) {
    if (auto errors = payment_matches_order(state, principal, resource_param, body);
        !errors.empty()) {
      return validation_failed(errors);
    }
  }
  return std::nullopt;
}

nlohmann::json operation_input(route_id route, const nlohmann::json& body) {
  // Copies the named members of `from` that are present (validation made them the right type).
  const auto pick = [](const nlohmann::json& from, std::initializer_list<const char*> names) {
    auto out = nlohmann::json::object();
    for (const char* name : names) {
      if (auto it = from.find(name); it != from.end()) out[name] = *it;
    }
    return out;
  };
  switch (route) {
    case route_id::create_order: {
      auto input = pick(body, {"merchant_order_id", "customer_id", "currency", "amount_minor"});
      auto& items = input["items"] = nlohmann::json::array();
      for (const auto& item : body.at("items"))
        items.push_back(pick(item, {"sku", "quantity", "unit_price_minor"}));
      return input;
    }
    case route_id::pay_order:
      return pick(body, {"amount_minor", "currency", "payment_method"});
    default:
      return pick(body, {"reason"});
  }
}

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

}  // namespace idem::mock
