#pragma once
// Canonical JSON as the contract's section 3 defines it for fingerprints: object keys sorted,
// no insignificant whitespace, UTF-8 unescaped, numbers as parsed (so `1` and `1.0` differ),
// the last of duplicate keys wins.

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

namespace idem::mock {

/// Parses `text` as JSON. Returns nullopt (never throws) for anything that is not exactly one
/// valid JSON value, including invalid UTF-8 and trailing garbage. Duplicate keys: the last wins.
[[nodiscard]] std::optional<nlohmann::json> parse_json(std::string_view text);

/// The canonical serialisation of a parsed value (sorted keys, no whitespace, UTF-8 unescaped).
[[nodiscard]] std::string canonical_json(const nlohmann::json& value);

}  // namespace idem::mock
