#include "idem_cli/duration.hpp"

#include <cstdint>
#include <limits>

namespace idem::cli {

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  std::size_t digits = 0;
  std::int64_t value = 0;
  constexpr std::int64_t limit = std::numeric_limits<std::int64_t>::max() / 3'600'000 / 10;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') {
    value = value * 10 + (text[digits] - '0');
    if (value > limit) return std::nullopt;
    ++digits;
  }
  if (digits == 0 || value == 0) return std::nullopt;
  const std::string_view unit = text.substr(digits);
  std::int64_t scale = 0;
  if (unit == "ms") {
    scale = 1;
  } else if (unit == "s" || unit.empty()) {
    scale = 1'000;
  } else if (unit == "m") {
    scale = 60'000;
  } else if (unit == "h") {
    scale = 3'600'000;
  } else {
    return std::nullopt;
  }
  return std::chrono::milliseconds{value * scale};
}

}  // namespace idem::cli
