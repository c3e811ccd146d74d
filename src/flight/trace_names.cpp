// The names of the observer's enums (observer.hpp), as the tracing example and logs print them.
#include "idem/observer.hpp"

namespace idem::trace {

std::string_view to_string(wait_reason r) noexcept {
  switch (r) {
    case wait_reason::backoff:
      return "backoff";
    case wait_reason::retry_after:
      return "retry_after";
    case wait_reason::retry_budget:
      return "retry_budget";
    case wait_reason::poll_interval:
      return "poll_interval";
    case wait_reason::lookup_backoff:
      return "lookup_backoff";
    case wait_reason::resume_spread:
      return "resume_spread";
  }
  return "unknown";
}

std::string_view to_string(lookup_cause c) noexcept {
  switch (c) {
    case lookup_cause::writes_ended:
      return "writes_ended";
    case lookup_cause::key_retention_passed:
      return "key_retention_passed";
  }
  return "unknown";
}

}  // namespace idem::trace
