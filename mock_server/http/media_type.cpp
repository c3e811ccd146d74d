#include "mock_server/http/media_type.hpp"

#include "mock_server/http/http_message.hpp"

namespace idem::mock {

bool is_json_media_type(std::string_view content_type) noexcept {
  auto type = content_type.substr(0, content_type.find(';'));
  while (!type.empty() && (type.front() == ' ' || type.front() == '\t'))
    type.remove_prefix(1);
  while (!type.empty() && (type.back() == ' ' || type.back() == '\t'))
    type.remove_suffix(1);
  constexpr std::string_view application = "application/";
  if (type.size() <= application.size() ||
      !iequals(type.substr(0, application.size()), application)) {
    return false;
  }
  const auto subtype = type.substr(application.size());
  constexpr std::string_view suffix = "+json";
  if (iequals(subtype, "json")) return true;
  return subtype.size() > suffix.size() &&
         iequals(subtype.substr(subtype.size() - suffix.size()), suffix) &&
         subtype.find_first_of(" \t/") == std::string_view::npos;
}

}  // namespace idem::mock
