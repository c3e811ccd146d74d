#pragma once
// The mock server's test-control API (contract section 6) as the soak uses it: the fault rules
// and the stats, over plain blocking libcurl.

#include <nlohmann/json.hpp>
#include <string>

namespace idem::soak {

/// Blocking calls to `base_url` + `/_mock/...` with `Authorization: Bearer <admin token>`.
/// Each throws std::runtime_error (naming the request) on a transport error, a status other
/// than 2xx or a body that is not JSON. Not thread-safe.
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
  nlohmann::json call(const char* method, const std::string& path, const std::string& body) const;
  std::string base_url_;
  std::string token_;
};

}  // namespace idem::soak
