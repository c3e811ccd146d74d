#include "mock_server/http/key_header.hpp"

#include <cstddef>
#include <optional>
#include <string_view>
#include <utility>

namespace idem::mock {

namespace {

constexpr std::size_t max_key_length = 255;

bool is_visible_ascii(char c) noexcept {
  const auto u = static_cast<unsigned char>(c);
  return u >= 0x21 && u <= 0x7E;
}

// RFC 9110 optional whitespace: only SP and HTAB.
std::string_view trim_ows(std::string_view s) noexcept {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

// An RFC 8941 sf-string: DQUOTE *(unescaped / "\" DQUOTE / "\" "\") DQUOTE, with nothing after
// the closing quote. Returns nullopt for bad escapes, a missing closing quote or trailing text.
std::optional<std::string> unquote_sf_string(std::string_view s) {
  std::string out;
  for (std::size_t i = 1; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"') {
      if (i + 1 != s.size()) return std::nullopt;  // text after the closing quote
      return out;
    }
    if (c == '\\') {
      if (++i == s.size()) return std::nullopt;
      if (s[i] != '"' && s[i] != '\\') return std::nullopt;  // sf-string knows only these two
      out.push_back(s[i]);
      continue;
    }
    out.push_back(c);
  }
  return std::nullopt;  // never closed
}

bool is_valid_key(std::string_view key) noexcept {
  if (key.empty() || key.size() > max_key_length) return false;
  for (char c : key) {
    if (!is_visible_ascii(c)) return false;
  }
  return true;
}

}  // namespace

std::variant<std::string, key_error> parse_idempotency_key(const request& req) {
  constexpr std::string_view name = "Idempotency-Key";
  const std::size_t count = req.header_count(name);
  if (count == 0) return key_error::missing;
  // Two values could disagree, and picking one would silently change which request this is.
  if (count > 1) return key_error::invalid;

  const std::string_view value = trim_ows(*req.header(name));
  std::string key;
  if (!value.empty() && value.front() == '"') {
    auto unquoted = unquote_sf_string(value);
    if (!unquoted) return key_error::invalid;
    key = std::move(*unquoted);
  } else {
    // A bare value is taken as is: keys such as UUIDs are not RFC 8941 tokens (they may start
    // with a digit), so only the visible-ASCII rule below applies.
    key = std::string{value};
  }
  // The same character rule for both forms: quoting must not let a space or a control
  // character into a key.
  if (!is_valid_key(key)) return key_error::invalid;
  return key;
}

bool has_key_line_with_control_character(std::string_view raw) noexcept {
  constexpr std::string_view name = "Idempotency-Key";
  // Lines end at LF (a bare CR inside a line is one of the control characters looked for).
  while (!raw.empty()) {
    const auto end = raw.find('\n');
    auto line = raw.substr(0, end);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (line.empty()) return false;  // the end of the header block
    const auto colon = line.find(':');
    if (colon != std::string_view::npos && iequals(line.substr(0, colon), name)) {
      for (char c : line.substr(colon + 1)) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && u != '\t') || u == 0x7F) return true;
      }
    }
    if (end == std::string_view::npos) break;
    raw.remove_prefix(end + 1);
  }
  return false;
}

}  // namespace idem::mock
