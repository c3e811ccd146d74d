#pragma once
// Human durations on the command line: "24h", "30s", "2s", "500ms", "1m", "1h30m", or a bare
// number of seconds.

#include <chrono>
#include <optional>
#include <string_view>

namespace idem::mock {

/// Parses a duration made of one or more `<digits><unit>` parts with units ms, s, m, h, d, or a
/// bare non-negative integer meaning seconds. Returns nullopt for anything else (negative,
/// empty, unknown unit, overflow).
[[nodiscard]] std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace idem::mock
