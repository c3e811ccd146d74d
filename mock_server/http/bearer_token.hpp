#pragma once
// `Authorization: Bearer <token>` (RFC 6750): the token, or nothing when the header is missing,
// uses another scheme or carries an empty token.

#include <optional>
#include <string>

#include "mock_server/http/http_message.hpp"

namespace idem::mock {

/// The scheme compares case-insensitively; surrounding whitespace is ignored.
[[nodiscard]] std::optional<std::string> bearer_token(const request& req);

}  // namespace idem::mock
