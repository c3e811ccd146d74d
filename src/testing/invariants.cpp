#include "idem/testing/invariants.hpp"

#include <algorithm>
#include <sstream>

namespace idem::kit {
namespace {

invariants_report bad(std::string why) {
  invariants_report r;
  r.unavailable = mock_error{mock_errc::bad_answer, "/_mock/invariants: " + std::move(why)};
  return r;
}

}  // namespace

bool invariants_report::ok() const noexcept {
  return !unavailable && !checks.empty() &&
         std::all_of(checks.begin(), checks.end(), [](const invariant_check& c) { return c.ok; });
}

std::string invariants_report::describe() const {
  std::ostringstream out;
  if (unavailable) {
    out << "invariants not checked: " << unavailable->describe();
    return out.str();
  }
  const auto failed =
      std::count_if(checks.begin(), checks.end(), [](const invariant_check& c) { return !c.ok; });
  if (checks.empty()) {
    out << "invariants: the server reported none";
  } else if (failed == 0) {
    out << "invariants: all " << checks.size() << " hold";
  } else {
    out << "invariants: " << failed << " of " << checks.size() << " broken";
  }
  for (const auto& c : checks) {
    out << "\n  " << (c.ok ? "[ ok ] " : "[FAIL] ") << c.name;
    if (c.ok) continue;
    out << ": " << c.violations << " violation(s)";
    for (const auto& e : c.examples)
      out << "\n         " << e;
  }
  return out.str();
}

invariants_report parse_invariants(const nlohmann::json& answer) {
  if (!answer.is_object()) return bad("not a JSON object");
  auto list = answer.find("checks");
  if (list == answer.end() || !list->is_array()) return bad("no 'checks' array");
  invariants_report report;
  for (const auto& item : *list) {
    if (!item.is_object()) return bad("a check is not an object");
    auto name = item.find("name");
    auto ok = item.find("ok");
    auto violations = item.find("violations");
    auto examples = item.find("examples");
    if (name == item.end() || !name->is_string() || ok == item.end() || !ok->is_boolean() ||
        violations == item.end() || !violations->is_number_integer() || examples == item.end() ||
        !examples->is_array()) {
      return bad("a check lacks name, ok, violations or examples: " + item.dump());
    }
    invariant_check c{.name = name->get<std::string>(),
                      .ok = ok->get<bool>(),
                      .violations = violations->get<std::int64_t>(),
                      .examples = {}};
    for (const auto& e : *examples)
      c.examples.push_back(e.is_string() ? e.get<std::string>() : e.dump());
    report.checks.push_back(std::move(c));
  }
  return report;
}

std::ostream& operator<<(std::ostream& out, const invariants_report& r) {
  return out << r.describe();
}

}  // namespace idem::kit
