#pragma once
// What one check of `idem-cli conform` found, and what a whole run comes to: the verdicts, the
// profile that reads every answer right, and the exit status.

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace idem::cli {

/// How a check ended.
enum class verdict {
  pass,  ///< what idem relies on holds
  warn,  ///< works with idem, maybe with a profile setting, but weaker than it could be
  fail,  ///< breaks exactly-once (a duplicate, a lost order, a false "rejected")
  skip,  ///< not checked (needs a flag) or not observable on this backend
  error  ///< could not be checked: no answer, or an answer that makes the check meaningless
};

[[nodiscard]] std::string_view to_string(verdict v) noexcept;

/// How sure a verdict is.
enum class certainty {
  proven,    ///< counted from what the backend holds (the lookup's records)
  observed,  ///< read from the answers alone (their statuses, problem types, resource ids)
  /// the answers allow more than one reading (a bare 409), or nothing could be checked
  inconclusive
};

[[nodiscard]] std::string_view to_string(certainty c) noexcept;

/// One check's row.
struct check_result {
  std::string id;     ///< stable name, e.g. "race" (the JSON's and the tests' handle)
  std::string title;  ///< e.g. "50 racing requests, one key"
  std::string sent;
  std::string came_back;
  verdict result = verdict::error;
  std::string why;      ///< what was found and what it costs
  std::string setting;  ///< which idem profile setting it implies
  certainty sure = certainty::observed;
  /// The built-in profiles that read this check's answers right; nullopt: the check does not
  /// depend on the profile.
  std::optional<std::vector<std::string>> profiles_ok{};
  /// An error because the backend gave no HTTP answer at all (the run stops checking then).
  bool no_answer = false;

  /// Sets the verdict and says why.
  void judge(verdict v, std::string reason) {
    result = v;
    why = std::move(reason);
  }
  /// Sets the verdict, how sure it is, and says why.
  void judge(verdict v, certainty how_sure, std::string reason) {
    judge(v, std::move(reason));
    sure = how_sure;
  }
};

/// The whole run.
struct conform_report {
  std::string url;
  std::string path;
  std::string profile;  ///< the one asked for (--profile)
  std::size_t race = 0;
  std::vector<check_result> checks;
};

struct verdict_counts {
  std::size_t pass = 0, warn = 0, fail = 0, skip = 0, error = 0;
};
[[nodiscard]] verdict_counts count(const conform_report& r);

/// The profile that reads every check's answers right: the one asked for if it does, else the
/// first built-in one (ietf, stripe, generic) that does; nullopt when none does (an app's own
/// classifier is needed).
[[nodiscard]] std::optional<std::string> recommended_profile(const conform_report& r);

/// conform's exit status: exit_conform_broken (1) when some check failed, else
/// exit_conform_inconclusive (3) when some check could not be completed, else 0. Warnings and
/// skipped checks never change it.
[[nodiscard]] int conform_exit_status(const conform_report& r);

}  // namespace idem::cli
