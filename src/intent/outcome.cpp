#include "idem/outcome.hpp"

namespace idem {

std::string_view to_string(outcome_kind k) noexcept {
  switch (k) {
    case outcome_kind::succeeded:
      return "succeeded";
    case outcome_kind::rejected:
      return "rejected";
    case outcome_kind::not_sent:
      return "not_sent";
    case outcome_kind::unresolved:
      return "unresolved";
  }
  return "unresolved";
}

const outcome_fields& outcome::unknown() noexcept {
  static const outcome_fields fields{};
  return fields;
}

}  // namespace idem
