#pragma once
// Durations on the command line: an integer with a unit, e.g. "30s", "500ms", "2m", "1h".

#include <chrono>
#include <optional>
#include <string_view>

namespace idem::cli {

/// Parses "<digits><unit>" with unit ms, s, m or h; a bare number means seconds. Returns nothing
/// for anything else, for zero, and for values that would overflow.
[[nodiscard]] std::optional<std::chrono::milliseconds> parse_duration(std::string_view text);

}  // namespace idem::cli
