#pragma once
/// @file
/// A whole fault configuration for the mock server: rules tried in order, and the seed that
/// makes their draws repeatable.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <vector>

#include "idem/testing/fault.hpp"

namespace idem::kit {

/// `{"seed": seed, "rules": [...]}` as `PUT /_mock/faults` takes it. Per stage of a request
/// (arrival, execution, provider call, after the commit) the server fires the first rule, in
/// this order, that matches, has `times` left and wins its draw. An aggregate:
/// `fault_set{.rules = {fault::provider_timeout().on_pay_order().times(1)}, .seed = 7}`.
struct fault_set {
  std::vector<fault> rules{};
  std::uint64_t seed = 42;

  [[nodiscard]] nlohmann::json to_json() const;
};

}  // namespace idem::kit
