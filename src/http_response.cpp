#include <algorithm>

#include "idem/transport.hpp"

namespace idem {
namespace {

// Field names are ASCII tokens (RFC 9110 section 5.1), so a byte-wise ASCII fold is exact and,
// unlike std::tolower, independent of the global locale.
bool iequals(std::string_view a, std::string_view b) noexcept {
  return std::ranges::equal(a, b, [](char x, char y) {
    auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
    return lower(x) == lower(y);
  });
}

}  // namespace

const std::string* http_response::header(std::string_view name) const {
  auto it = std::ranges::find_if(headers, [&](const auto& h) { return iequals(h.first, name); });
  return it == headers.end() ? nullptr : &it->second;
}

}  // namespace idem
