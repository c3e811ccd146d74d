#include "tests/support/http/integration.hpp"

#include "tests/support/http/problem_assertions.hpp"

namespace idem::kit {

std::string problem_name(const http_response& res) {
  auto body = nlohmann::json::parse(res.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("type") || !body["type"].is_string()) return {};
  auto type = body["type"].get<std::string>();
  if (type.starts_with(problem_prefix)) type.erase(0, problem_prefix.size());
  return type;
}

std::int64_t stat(api_client& api, std::string_view name) {
  auto stats = api.stats();
  auto it = stats.find(std::string{name});
  if (it == stats.end() || !it->is_number_integer()) return -1;
  return it->get<std::int64_t>();
}

}  // namespace idem::kit
