// The count parser of idem-cli's flags (flag_reader.hpp).
#include "idem_cli/command_line/flag_reader.hpp"

#include <charconv>
#include <optional>
#include <string>

namespace idem::cli {

std::optional<std::size_t> parse_count(const std::string& text, std::size_t max) {
  std::size_t value = 0;
  const char* end = text.data() + text.size();
  auto [ptr, ec] = std::from_chars(text.data(), end, value);
  if (ec != std::errc{} || ptr != end || value == 0 || value > max) return std::nullopt;
  return value;
}

}  // namespace idem::cli
