#pragma once
// What one run of idem-cli submits: the plan of a `load`, or the open intents of a journal for
// `resume`.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "idem/intent.hpp"
#include "idem/planned_intent.hpp"

namespace idem::cli {

/// What a run submits: intents ready to go, in order, and planned intents that each wait for
/// their prerequisite (an intent of `ready`, by key) to succeed; and, planned on demand, more of
/// both.
struct run_plan {
  std::vector<intent> ready;
  std::vector<planned_intent> after;
  /// Called once `ready` has run dry, for the next intents: adds at least one to `ready` (and
  /// what waits for them to `after`) and returns true, or returns false when there are no more.
  /// Unset: the plan is `ready` and `after`.
  std::function<bool(std::vector<intent>& ready, std::vector<planned_intent>& after)> more{};
  /// How many intents `more` adds in all (what the run counts before they exist).
  std::uint64_t more_intents = 0;
  /// Intents counted as not_sent without being submitted (a resume's abandoned plans).
  std::uint64_t never_sent = 0;
  /// Applied to each intent just before it is submitted (planned ones once bound), e.g. to give
  /// a resumed intent the lookup of the command line; unset: the intents as they are.
  std::function<intent(const intent&)> before_submit{};
  /// Where the intents go, for the words of transport errors (e.g. "connection refused (URL)").
  std::string url{};
};

}  // namespace idem::cli
