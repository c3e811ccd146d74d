#pragma once
// The mock server's test-control API (contract section 6) as the soak uses it: the fault rules
// and the stats, through the public test kit's client (idem::kit::mock_admin), as JSON.

#include <nlohmann/json.hpp>
#include <string>

#include "idem/testing/mock_admin.hpp"

namespace idem::soak {

/// Blocking calls to `base_url` + `/_mock/...` with `Authorization: Bearer <admin token>`.
/// Each throws std::runtime_error (idem::kit::bad_mock_result_access, naming the request)
/// on a transport error, a status other than 2xx or a body that is not JSON. Not thread-safe.
class admin_client {
 public:
  admin_client(std::string base_url, std::string admin_token);

  /// GET /_mock/stats.
  [[nodiscard]] nlohmann::json stats() const;
  /// GET /_mock/faults: the rules with each rule's `times` left.
  [[nodiscard]] nlohmann::json faults() const;
  /// PUT /_mock/faults: replaces the rules.
  void put_faults(const nlohmann::json& config) const;
  /// DELETE /_mock/faults: no more faults.
  void clear_faults() const;

 private:
  idem::kit::mock_admin admin_;
};

}  // namespace idem::soak
