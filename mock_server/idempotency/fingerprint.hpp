#pragma once
// The request fingerprint of contract section 2/3: SHA-256 over "METHOD\nPATH\nCANONICAL_JSON".

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace idem::mock {

/// Lower-case hex SHA-256 (64 characters) of `data`, computed with OpenSSL's EVP interface.
[[nodiscard]] std::string sha256_hex(std::string_view data);

/// Fingerprint of a request: sha256_hex(method + "\n" + path + "\n" + canonical_json(body)).
/// `path` must not contain the query string. Headers are never part of it.
[[nodiscard]] std::string request_fingerprint(std::string_view method, std::string_view path,
                                              const nlohmann::json& body);

}  // namespace idem::mock
