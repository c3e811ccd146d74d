#include "idem_cli/exit_status.hpp"

namespace idem::cli {

void add(outcome_counts& counts, outcome_kind kind) noexcept {
  switch (kind) {
    case outcome_kind::succeeded:
      ++counts.succeeded;
      break;
    case outcome_kind::rejected:
      ++counts.rejected;
      break;
    case outcome_kind::not_sent:
      ++counts.not_sent;
      break;
    case outcome_kind::unresolved:
      ++counts.unresolved;
      break;
  }
}

int exit_status_for(const outcome_counts& counts) noexcept {
  if (counts.unresolved != 0 || counts.not_sent != 0) return exit_some_open;
  if (counts.rejected != 0) return exit_some_rejected;
  return exit_all_succeeded;
}

int exit_status_for(const outcome_counts& counts, std::uint64_t intents) noexcept {
  const auto counted = counts.succeeded + counts.rejected + counts.not_sent + counts.unresolved;
  if (counted < intents) return exit_some_open;
  return exit_status_for(counts);
}

}  // namespace idem::cli
