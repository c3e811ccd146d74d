#include "compact_intent_record.hpp"

#include <utility>

namespace idem::detail {

compact_intent_record::compact_intent_record(intent_record r)
    : what_(std::move(r.what)),
      created_at_(r.created_at),
      first_attempt_at_(r.first_attempt_at.value_or(none)),
      finished_at_(r.finished_at.value_or(none)),
      attempts_(r.attempts),
      attempts_finished_(r.attempts_finished),
      final_status_(r.final_status),
      last_class_(r.last_class),
      last_outcome_(r.last_outcome),
      state_(r.state),
      path_bound_(r.path_bound),
      reached_server_(r.reached_server) {
  if (r.depends_on || !r.final_body.empty() || !r.error.empty()) {
    strings_ = std::make_unique<strings>(
        strings{std::move(r.depends_on), std::move(r.final_body), std::move(r.error)});
  }
}

intent_record compact_intent_record::scalars(intent what) const {
  return intent_record{.what = std::move(what),
                       .created_at = created_at_,
                       .first_attempt_at = unless_none(first_attempt_at_),
                       .finished_at = unless_none(finished_at_),
                       .path_bound = path_bound_,
                       .attempts = attempts_,
                       .attempts_finished = attempts_finished_,
                       .last_class = last_class_,
                       .reached_server = reached_server_,
                       .state = state_,
                       .last_outcome = last_outcome_,
                       .final_status = final_status_};
}

intent_record compact_intent_record::expand(std::string principal) const {
  intent_record r = scalars(what_);
  r.principal = std::move(principal);
  if (strings_) {
    r.depends_on = strings_->depends_on;
    r.final_body = strings_->final_body;
    r.error = strings_->error;
  }
  return r;
}

intent_record compact_intent_record::take() {
  intent_record r = scalars(std::move(what_));
  if (strings_) {
    r.depends_on = std::move(strings_->depends_on);
    r.final_body = std::move(strings_->final_body);
    r.error = std::move(strings_->error);
  }
  return r;
}

void compact_intent_record::apply(const intent_event& e) {
  intent_record r = take();
  idem::apply(r, e);
  *this = compact_intent_record(std::move(r));
}

}  // namespace idem::detail
