#pragma once
// Internal: small HTTP facts shared by the transport and the retry loop.

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace idem::detail {

// Field names are ASCII tokens (RFC 9110 section 5.1), so a byte-wise ASCII fold is exact and,
// unlike std::tolower, independent of the global locale.
inline bool ascii_iequals(std::string_view a, std::string_view b) noexcept {
  return std::ranges::equal(a, b, [](char x, char y) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return lower(x) == lower(y);
  });
}

// RFC 3986 percent-encoding of everything but unreserved characters (for a path segment or a
// query value).
inline std::string percent_encode(std::string_view s) {
  constexpr std::string_view hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
                            (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.' || c == '~';
    if (unreserved) {
      out += ch;
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 0xF];
    }
  }
  return out;
}

// The problem+json `type` of a body, or "" (a body that is not JSON simply has none).
inline std::string problem_type_of(std::string_view body) {
  auto j = nlohmann::json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_object()) {
    auto it = j.find("type");
    if (it != j.end() && it->is_string()) return it->get<std::string>();
  }
  return {};
}

}  // namespace idem::detail
