#pragma once
// Human durations on the command line, shared by idem-mock-server and idem-cli so that both
// accept the same forms: "24h", "30s", "500ms", "1m", "2d", compounds such as "1h30m" or
// "1m500ms", or a bare number of seconds.

#include <chrono>
#include <optional>
#include <string_view>

namespace idem::common {

/// Parses a duration made of one or more `<digits><unit>` parts with units ms, s, m, h, d, or a
/// bare non-negative integer meaning seconds. Zero is a valid duration; a caller that needs a
/// positive one checks that itself. Returns nullopt for anything else (negative, empty, unknown
/// unit, a compound part without a unit, overflow of milliseconds in 64 bits).
[[nodiscard]] std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace idem::common
