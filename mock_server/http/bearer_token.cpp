#include "mock_server/http/bearer_token.hpp"

namespace idem::mock {

std::optional<std::string> bearer_token(const request& req) {
  auto value = req.header("Authorization");
  if (!value) return std::nullopt;
  std::string_view v = *value;
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
    v.remove_prefix(1);
  while (!v.empty() && (v.back() == ' ' || v.back() == '\t'))
    v.remove_suffix(1);
  constexpr std::string_view scheme = "Bearer";
  if (v.size() <= scheme.size() || !iequals(v.substr(0, scheme.size()), scheme) ||
      (v[scheme.size()] != ' ' && v[scheme.size()] != '\t')) {
    return std::nullopt;
  }
  v.remove_prefix(scheme.size());
  while (!v.empty() && (v.front() == ' ' || v.front() == '\t'))
    v.remove_prefix(1);
  if (v.empty()) return std::nullopt;
  return std::string{v};
}

}  // namespace idem::mock
