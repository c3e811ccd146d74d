#pragma once
// The JSON form of `idem-cli conform`'s report (--json, --format json): the same rows as the
// table, with the verdicts as lower-case words, for scripts and CI.

#include <nlohmann/json.hpp>

#include "idem_cli/conform/conform_result.hpp"

namespace idem::cli {

/// {"url", "path", "profile", "race", "checks": [{"id", "title", "sent", "came_back",
/// "verdict": "pass"|"warn"|"fail"|"skip"|"error", "why", "idem_setting", "profiles_ok"?}],
/// "summary": {"pass", "warn", "fail", "skip", "error"}, "recommended_profile" (null when none
/// fits), "exit_status"}.
[[nodiscard]] nlohmann::json to_json(const conform_report& report);

}  // namespace idem::cli
