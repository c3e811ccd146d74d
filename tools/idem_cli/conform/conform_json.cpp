#include "idem_cli/conform/conform_json.hpp"

namespace idem::cli {
namespace {

std::string verdict_word(verdict v) {
  return v == verdict::fail ? "fail" : std::string(to_string(v));
}

}  // namespace

nlohmann::json to_json(const conform_report& report) {
  auto checks = nlohmann::json::array();
  for (const auto& c : report.checks) {
    nlohmann::json row = {{"id", c.id},
                          {"title", c.title},
                          {"sent", c.sent},
                          {"came_back", c.came_back},
                          {"verdict", verdict_word(c.result)},
                          {"certainty", to_string(c.sure)},
                          {"why", c.why},
                          {"idem_setting", c.setting}};
    if (c.profiles_ok) row["profiles_ok"] = *c.profiles_ok;
    checks.push_back(std::move(row));
  }
  const auto n = count(report);
  const auto fit = recommended_profile(report);
  return {{"url", report.url},
          {"path", report.path},
          {"profile", report.profile},
          {"race", report.race},
          {"checks", std::move(checks)},
          {"summary",
           {{"pass", n.pass},
            {"warn", n.warn},
            {"fail", n.fail},
            {"skip", n.skip},
            {"error", n.error}}},
          {"recommended_profile", fit ? nlohmann::json(*fit) : nlohmann::json(nullptr)},
          {"exit_status", conform_exit_status(report)}};
}

}  // namespace idem::cli
