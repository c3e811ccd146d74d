#include "idem_soak/admin_client.hpp"

#include <utility>

namespace idem::soak {

admin_client::admin_client(std::string base_url, std::string admin_token)
    : admin_(std::move(base_url), std::move(admin_token)) {}

nlohmann::json admin_client::stats() const {
  return admin_.stats().value().raw;
}

nlohmann::json admin_client::faults() const {
  return admin_.faults().value();
}

void admin_client::put_faults(const nlohmann::json& config) const {
  admin_.set_faults_json(config).value();
}

void admin_client::clear_faults() const {
  admin_.clear_faults().value();
}

}  // namespace idem::soak
