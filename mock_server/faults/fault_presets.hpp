#pragma once
// Named fault presets: ready-made rule sets of contract section 6 for the common questions ("is a
// lost response replayed?", "does a flaky gateway cost me an order?"). The one place they are
// defined: `--faults preset:NAME`, `PUT /_mock/faults {"preset": NAME}` and the test kit
// (idem::kit::mock_admin::use_preset) all expand them here. docs/MOCK_SERVER.md lists them.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>

#include "mock_server/faults/fault_rules.hpp"

namespace idem::mock {

/// One preset: its name, what it is for, and its rules as the JSON of `PUT /_mock/faults`.
struct fault_preset {
  std::string_view name;
  std::string_view purpose;
  std::string_view rules_json;  ///< {"seed": ..., "rules": [...]}
};

/// Every preset, in the order the docs list them.
[[nodiscard]] std::span<const fault_preset> fault_presets() noexcept;

/// The names, comma-separated ("lost-responses, flaky-gateway, ..."), for error messages.
[[nodiscard]] std::string fault_preset_names();

/// The rules of preset `name`, with `seed` instead of the preset's own seed when given. An
/// unknown name is an error that lists the known names.
[[nodiscard]] std::variant<fault_config, std::string> expand_fault_preset(
    std::string_view name, std::optional<std::uint64_t> seed = std::nullopt);

/// The body of `PUT /_mock/faults`: either a rule set (parse_fault_config) or a preset by name,
/// `{"preset": NAME, "seed": N}` (seed optional). A body with both `preset` and `rules` is an
/// error, as is a preset that is not a string.
[[nodiscard]] std::variant<fault_config, std::string> parse_fault_request(const nlohmann::json& j);

}  // namespace idem::mock
