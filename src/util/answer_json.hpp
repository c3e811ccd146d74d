#pragma once
// Internal: reading a server's answer as JSON. nlohmann's parser does not recurse, but dumping,
// copying and comparing a value recurse once per level of nesting, so an answer nested deeper
// than any API needs (a broken or hostile server's "[[[[...", up to max_response_bytes of it)
// would overflow the stack of the thread that handles it. Such an answer is read like any other
// that is not JSON.

#include <nlohmann/json.hpp>
#include <string_view>

namespace idem::detail {

/// Deeper than this, an answer is not read (real answers nest a handful of levels).
inline constexpr int max_answer_depth = 256;

/// `body` as JSON, or a discarded value when it is not JSON or nests deeper than
/// max_answer_depth (the deep part is never built). Never throws.
inline nlohmann::json parse_answer(std::string_view body) {
  bool too_deep = false;
  auto value = nlohmann::json::parse(
      body,
      [&too_deep](int depth, nlohmann::json::parse_event_t, nlohmann::json&) {
        if (depth > max_answer_depth) too_deep = true;
        return !too_deep;
      },
      /*allow_exceptions=*/false);
  return too_deep ? nlohmann::json(nlohmann::json::value_t::discarded) : value;
}

}  // namespace idem::detail
