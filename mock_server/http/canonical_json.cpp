#include "mock_server/http/canonical_json.hpp"

namespace idem::mock {

std::optional<nlohmann::json> parse_json(std::string_view text) {
  // allow_exceptions=false turns every parse error (bad syntax, invalid UTF-8 inside strings,
  // trailing garbage, empty input) into a `discarded` value instead of a throw. No callback is
  // installed, so a `discarded` result can only mean failure. nlohmann's DOM parser assigns
  // duplicate keys through operator[], so the last one wins, as the contract requires.
  auto value = nlohmann::json::parse(text.begin(), text.end(), /*cb=*/nullptr,
                                     /*allow_exceptions=*/false);
  if (value.is_discarded()) return std::nullopt;
  return value;
}

std::string canonical_json(const nlohmann::json& value) {
  // nlohmann::json stores objects in a std::map<std::string, ...>, so keys come out sorted by
  // their UTF-8 bytes (which is also code-point order). indent=-1 means no whitespace at all,
  // ensure_ascii=false keeps non-ASCII text as raw UTF-8 rather than \u escapes, and integers
  // and floats keep their distinct forms (`1` vs `1.0`). The strict error handler can only
  // throw for strings that did not come from parse_json (which guarantees valid UTF-8).
  return value.dump(/*indent=*/-1, /*indent_char=*/' ', /*ensure_ascii=*/false,
                    nlohmann::json::error_handler_t::strict);
}

}  // namespace idem::mock
