#include "idem_cli/exit_status.hpp"

namespace idem::cli {

int exit_status_for(const outcome_counts& counts) noexcept {
  if (counts.unresolved != 0 || counts.not_sent != 0) return exit_some_open;
  if (counts.rejected != 0) return exit_some_rejected;
  return exit_all_succeeded;
}

}  // namespace idem::cli
