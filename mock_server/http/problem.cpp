#include "mock_server/http/problem.hpp"

#include <cctype>
#include <stdexcept>
#include <utility>

namespace idem::mock {

namespace {

// "idempotency-key-missing" -> "Idempotency Key Missing": one title per name, with no table
// to keep in sync when a name is added.
std::string title_of(std::string_view name) {
  std::string title;
  title.reserve(name.size());
  bool word_start = true;
  for (char c : name) {
    if (c == '-') {
      title.push_back(' ');
      word_start = true;
      continue;
    }
    title.push_back(word_start ? static_cast<char>(std::toupper(static_cast<unsigned char>(c)))
                               : c);
    word_start = false;
  }
  return title;
}

// Responses are outputs: a stray invalid UTF-8 byte in a detail must not turn an answer into an
// exception, so it is replaced (U+FFFD) rather than rejected.
std::string dump_for_response(const nlohmann::json& body) {
  return body.dump(/*indent=*/-1, /*indent_char=*/' ', /*ensure_ascii=*/false,
                   nlohmann::json::error_handler_t::replace);
}

}  // namespace

response make_problem(int status, std::string_view name, std::string detail,
                      const nlohmann::json& extensions) {
  if (!extensions.is_null() && !extensions.is_object()) {
    throw std::invalid_argument("make_problem: extensions must be a JSON object or null");
  }
  nlohmann::json body = nlohmann::json::object();
  if (extensions.is_object()) body = extensions;
  // The standard members are set last so that an extension can never disguise the problem type
  // or status that clients switch on.
  body["type"] = std::string{problem_type_prefix} + std::string{name};
  body["title"] = title_of(name);
  body["status"] = status;
  body["detail"] = std::move(detail);

  response res;
  res.status = status;
  res.set_header("Content-Type", "application/problem+json");
  res.body = dump_for_response(body);
  return res;
}

response make_json(int status, const nlohmann::json& body) {
  response res;
  res.status = status;
  res.set_header("Content-Type", "application/json");
  res.body = dump_for_response(body);
  return res;
}

}  // namespace idem::mock
