#include "mock_server/http/prefer_header.hpp"

#include <charconv>
#include <cstdint>
#include <string_view>

namespace idem::mock {
namespace {

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

void apply(std::string_view pref, preferences& out) {
  pref = trim(pref.substr(0, pref.find(';')));
  auto eq = pref.find('=');
  std::string_view name = trim(pref.substr(0, eq));
  if (eq == std::string_view::npos) {
    if (iequals(name, "respond-async")) out.respond_async = true;
    return;
  }
  if (!iequals(name, "wait")) return;
  std::string_view value = trim(pref.substr(eq + 1));
  if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
    value = value.substr(1, value.size() - 2);
  }
  // Digits only; a number too large for any integer still means "wait as long as you allow".
  if (value.empty() || value.find_first_not_of("0123456789") != std::string_view::npos) return;
  std::int64_t seconds = 0;
  auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), seconds);
  if (ec == std::errc::result_out_of_range || seconds > max_wait_preference.count()) {
    seconds = max_wait_preference.count();
  } else if (ec != std::errc{} || end != value.data() + value.size()) {
    return;
  }
  out.wait = std::chrono::seconds(seconds);
}

}  // namespace

preferences parse_preferences(const request& req) {
  preferences out;
  for (const auto& [name, value] : req.headers) {
    if (!iequals(name, "Prefer")) continue;
    std::string_view rest{value};
    while (!rest.empty()) {
      auto comma = rest.find(',');
      apply(rest.substr(0, comma), out);
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return out;
}

}  // namespace idem::mock
