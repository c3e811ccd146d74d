#include "mock_server/faults/fault_presets.hpp"

#include <array>

namespace idem::mock {
namespace {

using json = nlohmann::json;

// Every rule matches writes only (POST): the reads a test makes to check its results, and the
// SDK's lookups, are left alone. Probabilities are per request and per stage: the first rule of a
// stage that wins its draw fires. The seeds make a run repeatable; any seed is as good.
constexpr std::array<fault_preset, 5> presets{{
    {"lost-responses",
     "the response is lost or replaced by a gateway error after the commit: a retry must be "
     "replayed, never executed again",
     R"({"seed": 1, "rules": [
  {"match": {"method": "POST"}, "fault": "drop_response_after_commit", "probability": 0.2},
  {"match": {"method": "POST"}, "fault": "status_after_commit", "status": 502, "probability": 0.1},
  {"match": {"method": "POST"}, "fault": "status_after_commit", "status": 504, "probability": 0.1}
]})"},
    {"flaky-gateway",
     "requests fail before they reach the application (reset, 502, 503 with Retry-After): "
     "nothing happened, and a retry with the same key must get through",
     R"({"seed": 1, "rules": [
  {"match": {"method": "POST"}, "fault": "reset_before_processing", "probability": 0.1},
  {"match": {"method": "POST"}, "fault": "status_before_processing", "status": 502,
   "probability": 0.1},
  {"match": {"method": "POST"}, "fault": "status_before_processing", "status": 503,
   "retry_after_s": 1, "probability": 0.1}
]})"},
    {"slow-provider",
     "slow executions (duplicates meet 409 in progress), payment provider timeouts (an "
     "ambiguous charge settled by a takeover, never a second charge) and stalled answers",
     R"({"seed": 1, "rules": [
  {"match": {"method": "POST"}, "fault": "delay", "delay_ms": 1500, "probability": 0.15},
  {"match": {"method": "POST", "route": "/v1/orders/{id}/payments"}, "fault": "provider_timeout",
   "probability": 0.25},
  {"match": {"method": "POST"}, "fault": "stall_after_commit", "delay_ms": 3000,
   "probability": 0.1}
]})"},
    // Certain, unlike the others: a hold fails nothing (every request goes through when it ends),
    // and a duplicate must be sure to meet it. Half a second is long enough for a duplicate sent
    // at once to arrive during it, short enough that a test under it stays quick.
    {"in-progress",
     "every write is held in PROCESSING for 500 ms before it executes: a duplicate sent meanwhile "
     "meets 409 idempotency-request-in-progress with Retry-After, or waits with Prefer: wait",
     R"({"seed": 1, "rules": [
  {"match": {"method": "POST"}, "fault": "hold_in_processing", "delay_ms": 500}
]})"},
    {"everything",
     "every fault of the contract at once (but hold_in_processing: its delay holds executions "
     "too), each at a moderate rate (run the server with a short --lease: crashed executions are "
     "taken over when it runs out)",
     R"({"seed": 1, "rules": [
  {"match": {"method": "POST"}, "fault": "reset_before_processing", "probability": 0.05},
  {"match": {"method": "POST"}, "fault": "status_before_processing", "status": 503,
   "retry_after_s": 1, "probability": 0.05},
  {"match": {"method": "POST"}, "fault": "status_before_processing", "status": 429,
   "retry_after_s": 1, "probability": 0.03},
  {"match": {"method": "POST"}, "fault": "delay", "delay_ms": 1000, "probability": 0.05},
  {"match": {"method": "POST"}, "fault": "crash_during_processing", "probability": 0.03},
  {"match": {"method": "POST", "route": "/v1/orders/{id}/payments"}, "fault": "provider_timeout",
   "probability": 0.1},
  {"match": {"method": "POST"}, "fault": "drop_response_after_commit", "probability": 0.1},
  {"match": {"method": "POST"}, "fault": "status_after_commit", "status": 502, "probability": 0.05},
  {"match": {"method": "POST"}, "fault": "status_after_commit", "status": 500, "probability": 0.05},
  {"match": {"method": "POST"}, "fault": "stall_after_commit", "delay_ms": 2000,
   "probability": 0.03}
]})"},
}};

const fault_preset* find_preset(std::string_view name) {
  for (const auto& p : presets) {
    if (p.name == name) return &p;
  }
  return nullptr;
}

// The preset's rules with `seed` (a JSON value, checked by parse_fault_config) put in.
std::variant<fault_config, std::string> expand(const fault_preset& preset,
                                               const json* seed_override) {
  json rules = json::parse(preset.rules_json);
  if (seed_override != nullptr) rules["seed"] = *seed_override;
  return parse_fault_config(rules);
}

std::string unknown_preset(std::string_view name) {
  return "unknown fault preset '" + std::string{name} + "' (known: " + fault_preset_names() + ")";
}

}  // namespace

std::span<const fault_preset> fault_presets() noexcept {
  return presets;
}

std::string fault_preset_names() {
  std::string names;
  for (const auto& p : presets) {
    if (!names.empty()) names += ", ";
    names += p.name;
  }
  return names;
}

std::variant<fault_config, std::string> expand_fault_preset(std::string_view name,
                                                            std::optional<std::uint64_t> seed) {
  const fault_preset* preset = find_preset(name);
  if (preset == nullptr) return unknown_preset(name);
  const json seed_json = seed ? json(*seed) : json();
  return expand(*preset, seed ? &seed_json : nullptr);
}

std::variant<fault_config, std::string> parse_fault_request(const json& j) {
  if (!j.is_object() || !j.contains("preset")) return parse_fault_config(j);
  const json& name = j["preset"];
  if (!name.is_string()) return std::string{"preset: must be a string"};
  if (j.contains("rules")) return std::string{"preset: give either a preset or rules, not both"};
  const fault_preset* preset = find_preset(name.get_ref<const std::string&>());
  if (preset == nullptr) return "preset: " + unknown_preset(name.get_ref<const std::string&>());
  auto seed = j.find("seed");
  return expand(*preset, seed == j.end() || seed->is_null() ? nullptr : &*seed);
}

}  // namespace idem::mock
