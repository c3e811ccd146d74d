#include "idem_cli/conform/conform_result.hpp"

#include <algorithm>
#include <array>

#include "idem_cli/exit_status.hpp"

namespace idem::cli {

std::string_view to_string(verdict v) noexcept {
  // In the order of the enum; FAIL in capitals, so that it stands out in the table.
  constexpr std::array<std::string_view, 5> words = {"pass", "warn", "FAIL", "skip", "error"};
  const auto at = static_cast<std::size_t>(v);
  return at < words.size() ? words[at] : "error";
}

std::string_view to_string(certainty c) noexcept {
  constexpr std::array<std::string_view, 3> words = {"proven", "observed", "inconclusive"};
  const auto at = static_cast<std::size_t>(c);
  return at < words.size() ? words[at] : "inconclusive";
}

verdict_counts count(const conform_report& r) {
  const auto n = [&](verdict v) {
    return static_cast<std::size_t>(
        std::ranges::count_if(r.checks, [v](const check_result& c) { return c.result == v; }));
  };
  return {.pass = n(verdict::pass),
          .warn = n(verdict::warn),
          .fail = n(verdict::fail),
          .skip = n(verdict::skip),
          .error = n(verdict::error)};
}

std::optional<std::string> recommended_profile(const conform_report& r) {
  const auto fits = [&](const std::string& name) {
    return std::ranges::all_of(r.checks, [&](const check_result& c) {
      return !c.profiles_ok || std::ranges::find(*c.profiles_ok, name) != c.profiles_ok->end();
    });
  };
  if (fits(r.profile)) return r.profile;
  for (const char* name : {"ietf", "stripe", "generic"}) {
    if (fits(name)) return name;
  }
  return std::nullopt;
}

int conform_exit_status(const conform_report& r) {
  const auto c = count(r);
  if (c.fail != 0) return exit_conform_broken;
  if (c.error != 0) return exit_conform_inconclusive;
  return exit_conform_clean;
}

}  // namespace idem::cli
