#include <algorithm>

#include "idem/transport.hpp"
#include "util/http_facts.hpp"

namespace idem {

const std::string* find_header(const header_list& headers, std::string_view name) noexcept {
  auto it = std::ranges::find_if(
      headers, [&](const auto& h) { return detail::ascii_iequals(h.first, name); });
  return it == headers.end() ? nullptr : &it->second;
}

const std::string* http_response::header(std::string_view name) const {
  return find_header(headers, name);
}

}  // namespace idem
