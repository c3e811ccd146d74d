#include "mock_server/faults/fault_rules.hpp"

#include <algorithm>
#include <array>
#include <climits>
#include <limits>
#include <utility>

namespace idem::mock {

namespace {

using json = nlohmann::json;

struct fault_info {
  fault_kind kind;
  std::string_view name;
  fault_stage stage;
};

constexpr std::array<fault_info, 9> fault_table{{
    {fault_kind::delay, "delay", fault_stage::execution},
    {fault_kind::reset_before_processing, "reset_before_processing", fault_stage::arrival},
    {fault_kind::status_before_processing, "status_before_processing", fault_stage::arrival},
    {fault_kind::drop_response_after_commit, "drop_response_after_commit",
     fault_stage::after_commit},
    {fault_kind::status_after_commit, "status_after_commit", fault_stage::after_commit},
    {fault_kind::stall_after_commit, "stall_after_commit", fault_stage::after_commit},
    {fault_kind::crash_during_processing, "crash_during_processing", fault_stage::execution},
    {fault_kind::provider_timeout, "provider_timeout", fault_stage::provider},
    {fault_kind::hold_in_processing, "hold_in_processing", fault_stage::execution},
}};

const fault_info& info_of(fault_kind kind) noexcept {
  // The table is indexed by the enumerator's value; the static_asserts below keep it so.
  return fault_table[static_cast<std::size_t>(kind)];
}

constexpr bool table_in_enum_order() {
  for (std::size_t i = 0; i < fault_table.size(); ++i) {
    if (static_cast<std::size_t>(fault_table[i].kind) != i) return false;
  }
  return true;
}
static_assert(table_in_enum_order(), "fault_table must list fault_kind in declaration order");

std::optional<fault_kind> fault_from_name(std::string_view name) {
  for (const auto& f : fault_table) {
    if (f.name == name) return f.kind;
  }
  return std::nullopt;
}

bool uses_delay(fault_kind k) {
  return k == fault_kind::delay || k == fault_kind::stall_after_commit ||
         k == fault_kind::hold_in_processing;
}
bool uses_status(fault_kind k) {
  return k == fault_kind::status_before_processing || k == fault_kind::status_after_commit;
}

std::string_view allowed_statuses_text(fault_kind k) {
  return k == fault_kind::status_before_processing ? "429, 500, 502, 503 or 504"
                                                   : "500, 502 or 504";
}

bool status_allowed(fault_kind k, std::int64_t status) {
  if (k == fault_kind::status_before_processing) {
    return status == 429 || status == 500 || status == 502 || status == 503 || status == 504;
  }
  return status == 500 || status == 502 || status == 504;
}

constexpr auto int64_max = std::numeric_limits<std::int64_t>::max();
// A day: longer than any client deadline, and far from where a timer's now + delay overflows
// (INT64_MAX ms used to wrap into the past and fire at once).
constexpr std::int64_t max_delay_ms = 86'400'000;

// Parsing stops at the first error; the message names the field, e.g. "rules[1].times: ...".
struct parse_error {
  std::string message;
};

// An optional member: absent and null both mean "not given".
const json* optional_member(const json& object, const char* key) {
  auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

// The value of a JSON integer that fits in int64. Booleans and floats (even 3.0) are not
// integers, and a uint64 above INT64_MAX must not wrap into a negative number.
std::optional<std::int64_t> as_int64(const json& value) {
  if (!value.is_number_integer()) return std::nullopt;  // false for booleans and floats
  if (value.is_number_unsigned()) {
    const auto u = value.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(int64_max)) return std::nullopt;
    return static_cast<std::int64_t>(u);
  }
  return value.get<std::int64_t>();
}

// A non-negative integer no larger than `max`.
std::int64_t non_negative_integer(const json& value, const std::string& field, std::int64_t max) {
  const auto i = as_int64(value);
  if (!i || *i < 0 || *i > max) {
    throw parse_error{field + ": must be an integer from 0 to " + std::to_string(max)};
  }
  return *i;
}

std::optional<std::string> optional_string(const json& object, const char* key,
                                           const std::string& field) {
  const json* value = optional_member(object, key);
  if (value == nullptr) return std::nullopt;
  if (!value->is_string()) throw parse_error{field + ": must be a string"};
  return value->get<std::string>();
}

void parse_match(const json& rule, const std::string& prefix, fault_rule& out) {
  const json* match = optional_member(rule, "match");
  if (match == nullptr) return;
  const std::string field = prefix + ".match";
  if (!match->is_object()) throw parse_error{field + ": must be an object"};
  out.method = optional_string(*match, "method", field + ".method");
  out.route = optional_string(*match, "route", field + ".route");
}

void parse_parameters(const json& rule, const std::string& prefix, fault_rule& out) {
  // Only the parameters a fault uses are read: the others are ignored, as documented.
  if (uses_delay(out.fault)) {
    if (const json* v = optional_member(rule, "delay_ms")) {
      out.delay =
          std::chrono::milliseconds{non_negative_integer(*v, prefix + ".delay_ms", max_delay_ms)};
    }
  }
  if (uses_status(out.fault)) {
    out.status = out.fault == fault_kind::status_after_commit ? 500 : 503;
    if (const json* v = optional_member(rule, "status")) {
      const std::string field = prefix + ".status";
      const std::string message =
          field + ": must be " + std::string{allowed_statuses_text(out.fault)};
      const auto status = as_int64(*v);
      if (!status || !status_allowed(out.fault, *status)) throw parse_error{message};
      out.status = static_cast<int>(*status);
    }
  }
  if (out.fault == fault_kind::status_before_processing) {
    if (const json* v = optional_member(rule, "retry_after_s")) {
      out.retry_after_s =
          static_cast<int>(non_negative_integer(*v, prefix + ".retry_after_s", INT_MAX));
    }
  }
}

fault_rule parse_rule(const json& rule, const std::string& prefix) {
  if (!rule.is_object()) throw parse_error{prefix + ": must be an object"};
  fault_rule out;
  const json* fault = optional_member(rule, "fault");
  if (fault == nullptr) throw parse_error{prefix + ".fault: is required"};
  if (!fault->is_string()) throw parse_error{prefix + ".fault: must be a string"};
  const auto& name = fault->get_ref<const std::string&>();
  auto kind = fault_from_name(name);
  if (!kind) throw parse_error{prefix + ".fault: unknown fault '" + name + "'"};
  out.fault = *kind;

  parse_match(rule, prefix, out);
  if (const json* p = optional_member(rule, "probability")) {
    const std::string message = prefix + ".probability: must be a number from 0 to 1";
    // is_number() is false for booleans; JSON has no NaN, so the range test is complete.
    if (!p->is_number()) throw parse_error{message};
    const auto probability = p->get<double>();
    if (!(probability >= 0.0 && probability <= 1.0)) throw parse_error{message};
    out.probability = probability;
  }
  if (const json* t = optional_member(rule, "times")) {
    out.times = non_negative_integer(*t, prefix + ".times", int64_max);
  }
  parse_parameters(rule, prefix, out);
  return out;
}

fault_config parse_config(const json& j) {
  if (!j.is_object()) throw parse_error{"body: must be a JSON object"};
  fault_config config;
  if (const json* seed = optional_member(j, "seed")) {
    // The whole uint64 range is a valid seed. A parsed non-negative integer is number_unsigned,
    // but one built in C++ from an `int` is number_integer, so both kinds are accepted.
    const bool non_negative =
        seed->is_number_unsigned() || (seed->is_number_integer() && seed->get<std::int64_t>() >= 0);
    if (!non_negative) throw parse_error{"seed: must be a non-negative integer"};
    config.seed = seed->get<std::uint64_t>();
  }
  auto rules = j.find("rules");
  if (rules == j.end()) throw parse_error{"rules: is required"};
  if (!rules->is_array()) throw parse_error{"rules: must be an array"};
  config.rules.reserve(rules->size());
  for (std::size_t i = 0; i < rules->size(); ++i) {
    config.rules.push_back(parse_rule((*rules)[i], "rules[" + std::to_string(i) + "]"));
  }
  return config;
}

// A uniform double in [0, 1) from the top 53 bits of one 64-bit output. Written out rather than
// using std::uniform_real_distribution, whose algorithm differs between standard libraries:
// a seed must replay the same faults wherever the server is built.
double draw_unit(std::mt19937_64& rng) {
  return static_cast<double>(rng() >> 11) * 0x1.0p-53;
}

}  // namespace

fault_stage stage_of(fault_kind kind) noexcept {
  return info_of(kind).stage;
}

std::string_view to_string(fault_kind kind) noexcept {
  return info_of(kind).name;
}

std::variant<fault_config, std::string> parse_fault_config(const json& j) {
  // parse_error stays inside this function: callers get a value, never an exception.
  try {
    return parse_config(j);
  } catch (const parse_error& e) {
    return e.message;
  }
}

json to_json(const fault_config& config) {
  json rules = json::array();
  for (const auto& rule : config.rules) {
    json match = json::object();
    if (rule.method) match["method"] = *rule.method;
    if (rule.route) match["route"] = *rule.route;
    json r = {{"match", std::move(match)},
              {"fault", std::string{to_string(rule.fault)}},
              {"probability", rule.probability}};
    if (rule.times) r["times"] = *rule.times;
    if (uses_delay(rule.fault)) r["delay_ms"] = rule.delay.count();
    if (uses_status(rule.fault)) r["status"] = rule.status;
    if (rule.fault == fault_kind::status_before_processing && rule.retry_after_s) {
      r["retry_after_s"] = *rule.retry_after_s;
    }
    rules.push_back(std::move(r));
  }
  return {{"seed", config.seed}, {"rules", std::move(rules)}};
}

bool rule_matches(const fault_rule& rule, std::string_view method, std::string_view route_template,
                  std::string_view path) {
  if (rule.method && *rule.method != method) return false;
  if (rule.route && *rule.route != route_template && *rule.route != path) return false;
  return true;
}

void fault_injector::configure(fault_config config) {
  config_ = std::move(config);
  rng_.seed(config_.seed);
}

void fault_injector::clear() {
  config_.rules.clear();
}

std::optional<fault_rule> fault_injector::pick(fault_stage stage, std::string_view method,
                                               std::string_view route_template,
                                               std::string_view path) {
  for (auto& rule : config_.rules) {
    if (stage_of(rule.fault) != stage) continue;
    if (!rule_matches(rule, method, route_template, path)) continue;
    if (rule.times && *rule.times <= 0) continue;
    // Certain rules draw nothing, so adding one does not shift the dice of the others.
    if (rule.probability < 1.0 && !(draw_unit(rng_) < rule.probability)) continue;
    if (rule.times) --*rule.times;
    return rule;
  }
  return std::nullopt;
}

}  // namespace idem::mock
