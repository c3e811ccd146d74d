#pragma once
// RFC 7240 `Prefer` as the server uses it: `respond-async` and `wait=N`.

#include <chrono>
#include <optional>

#include "mock_server/http/http_message.hpp"

namespace idem::mock {

/// The largest `wait=N` kept (a day); larger values, however many digits, become this. The server
/// caps the wait at 10 s anyway; the cap here keeps every later duration sum far from overflow.
inline constexpr std::chrono::seconds max_wait_preference{86'400};

struct preferences {
  bool respond_async = false;
  std::optional<std::chrono::seconds> wait;  ///< wait=N with N a non-negative integer (capped)
};

/// Reads every `Prefer` header of the request; preferences are comma separated, names compare
/// case-insensitively, parameters after ';' are ignored, unknown or malformed ones are ignored.
[[nodiscard]] preferences parse_preferences(const request& req);

}  // namespace idem::mock
