#pragma once
// RFC 9457 problem details (application/problem+json) as the contract's section 5 names them.

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "mock_server/http/http_message.hpp"

namespace idem::mock {

/// Prefix of every problem `type`: "https://idem.example/problems/".
inline constexpr std::string_view problem_type_prefix = "https://idem.example/problems/";

/// Builds a problem+json response: status, `Content-Type: application/problem+json`, and a body
/// `{"type": prefix+name, "title", "status", "detail", ...extensions}`. `title` is a fixed
/// human-readable title derived from `name` (e.g. "not-found" -> "Not Found"); `extensions` must
/// be a JSON object (or null) whose members are merged into the body; an extension never
/// overrides the four standard members. Throws std::invalid_argument for any other extensions
/// value (a programming error).
[[nodiscard]] response make_problem(int status, std::string_view name, std::string detail,
                                    const nlohmann::json& extensions = nullptr);

/// A JSON response with `Content-Type: application/json` and the compact dump of `body`.
[[nodiscard]] response make_json(int status, const nlohmann::json& body);

}  // namespace idem::mock
