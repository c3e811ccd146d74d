#pragma once
// Internal: reading the few facts the retry loop needs out of an HTTP response.

#include <algorithm>
#include <cctype>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "idem/transport.hpp"

namespace idem::detail {

// Case-insensitive header lookup (field names are case-insensitive, RFC 9110 5.1).
inline const std::string* find_header(const header_list& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (k.size() == name.size() && std::equal(k.begin(), k.end(), name.begin(), [](char a, char b) {
          return std::tolower(static_cast<unsigned char>(a)) ==
                 std::tolower(static_cast<unsigned char>(b));
        })) {
      return &v;
    }
  }
  return nullptr;
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
