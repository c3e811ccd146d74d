#include <algorithm>

#include "http_facts.hpp"
#include "idem/transport.hpp"

namespace idem {

const std::string* http_response::header(std::string_view name) const {
  auto it = std::ranges::find_if(
      headers, [&](const auto& h) { return detail::ascii_iequals(h.first, name); });
  return it == headers.end() ? nullptr : &it->second;
}

}  // namespace idem
