#include "common/duration.hpp"

#include <cstdint>
#include <limits>

namespace idem::common {

namespace {

constexpr std::int64_t max_ms = std::numeric_limits<std::int64_t>::max();

bool is_digit(char c) noexcept {
  return c >= '0' && c <= '9';
}

// Reads a run of digits from the front of `text`; nullopt when there is none or it overflows.
std::optional<std::int64_t> take_number(std::string_view& text) {
  if (text.empty() || !is_digit(text.front())) return std::nullopt;
  std::int64_t n = 0;
  while (!text.empty() && is_digit(text.front())) {
    const int d = text.front() - '0';
    if (n > (max_ms - d) / 10) return std::nullopt;
    n = n * 10 + d;
    text.remove_prefix(1);
  }
  return n;
}

// Reads a unit from the front of `text` and returns its length in milliseconds. "ms" is tried
// before "m" so that "500ms" is not read as 500 minutes followed by garbage.
std::optional<std::int64_t> take_unit(std::string_view& text) {
  struct unit {
    std::string_view name;
    std::int64_t ms;
  };
  static constexpr unit units[] = {
      {"ms", 1}, {"s", 1'000}, {"m", 60'000}, {"h", 3'600'000}, {"d", 86'400'000},
  };
  for (const auto& u : units) {
    if (text.starts_with(u.name)) {
      text.remove_prefix(u.name.size());
      return u.ms;
    }
  }
  return std::nullopt;
}

bool all_digits(std::string_view text) noexcept {
  for (char c : text) {
    if (!is_digit(c)) return false;
  }
  return true;
}

}  // namespace

std::optional<std::chrono::milliseconds> parse_duration(std::string_view text) {
  if (text.empty()) return std::nullopt;
  if (all_digits(text)) {  // a bare number means seconds
    auto seconds = take_number(text);
    if (!seconds || *seconds > max_ms / 1000) return std::nullopt;
    return std::chrono::milliseconds{*seconds * 1000};
  }
  std::int64_t total = 0;
  while (!text.empty()) {
    auto count = take_number(text);
    if (!count) return std::nullopt;
    auto unit_ms =
        take_unit(text);  // in a compound duration every number has a unit: "1h30" is bad
    if (!unit_ms) return std::nullopt;
    if (*count > max_ms / *unit_ms) return std::nullopt;
    const std::int64_t part = *count * *unit_ms;
    if (total > max_ms - part) return std::nullopt;
    total += part;
  }
  return std::chrono::milliseconds{total};
}

}  // namespace idem::common
