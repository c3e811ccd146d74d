#pragma once
// Content-Type checks (RFC 9110 section 8.3): which media types the server takes as JSON.

#include <string_view>

namespace idem::mock {

/// True for `application/json` and any `application/<x>+json` (RFC 6839), compared without
/// regard to case, with optional whitespace and parameters (e.g. `; charset=utf-8`) ignored.
[[nodiscard]] bool is_json_media_type(std::string_view content_type) noexcept;

}  // namespace idem::mock
