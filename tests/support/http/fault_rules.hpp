#pragma once
// Builders for the fault rules of contract section 6 (PUT /_mock/faults), shared by the mock
// server's tests and the SDK's live tests.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace idem::kit {

/// A rule for `fault` on the POSTs to `route` (a route template such as
/// "/v1/orders/{id}/payments", or a concrete path), with `params` (e.g. `times`, `delay_ms`,
/// `status`, `probability`) merged in: {"match": {"method": "POST", "route": route},
/// "fault": fault, ...params}. A key in `params` replaces the one built here.
inline nlohmann::json fault_rule(std::string fault, std::string route,
                                 nlohmann::json params = nlohmann::json::object()) {
  nlohmann::json r = {{"match", {{"method", "POST"}, {"route", std::move(route)}}},
                      {"fault", std::move(fault)}};
  r.update(params);
  return r;
}

/// A rule for `fault` on POST /v1/orders (create an order).
inline nlohmann::json on_create(std::string fault,
                                nlohmann::json params = nlohmann::json::object()) {
  return fault_rule(std::move(fault), "/v1/orders", std::move(params));
}

/// A rule for `fault` on POST /v1/orders/{id}/payments (pay any order).
inline nlohmann::json on_pay(std::string fault, nlohmann::json params = nlohmann::json::object()) {
  return fault_rule(std::move(fault), "/v1/orders/{id}/payments", std::move(params));
}

/// A whole fault configuration: {"seed": seed, "rules": [...]}. The server tries the rules in
/// this order and fires the first that matches.
inline nlohmann::json fault_config(std::vector<nlohmann::json> rules, std::uint64_t seed = 42) {
  nlohmann::json list = nlohmann::json::array();
  for (auto& r : rules) {
    list.push_back(std::move(r));
  }
  return {{"seed", seed}, {"rules", std::move(list)}};
}

/// A configuration with just `rule` (seed 42).
inline nlohmann::json only(nlohmann::json rule) {
  return fault_config({std::move(rule)});
}

}  // namespace idem::kit
