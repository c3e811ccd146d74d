#pragma once
// One blocking admin request over libcurl's easy interface (private to the kit).

#include <nlohmann/json.hpp>
#include <string>

#include "idem/testing/mock_result.hpp"

namespace idem::kit::detail {

/// `method base_url+path` with `Authorization: Bearer admin_token` and, when `body` is not null,
/// the JSON body. A 2xx answer gives its body parsed (an empty body: an empty object); no answer
/// is request_failed, another status refused (with the server's answer), a body that is not
/// JSON bad_answer. 30 s limit; proxies are never used (the server is local).
[[nodiscard]] mock_result<nlohmann::json> admin_request(const std::string& base_url,
                                                        const std::string& admin_token,
                                                        const char* method, const char* path,
                                                        const nlohmann::json& body = nullptr);

}  // namespace idem::kit::detail
