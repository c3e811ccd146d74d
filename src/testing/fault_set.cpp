#include "idem/testing/fault_set.hpp"

namespace idem::kit {

nlohmann::json fault_set::to_json() const {
  nlohmann::json list = nlohmann::json::array();
  for (const auto& rule : rules)
    list.push_back(rule.to_json());
  return {{"seed", seed}, {"rules", std::move(list)}};
}

}  // namespace idem::kit
