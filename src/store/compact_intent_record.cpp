#include "store/compact_intent_record.hpp"

#include <utility>
#include <variant>

#include "store/attempt_counting.hpp"
#include "store/intent_closing.hpp"

namespace idem::detail {

// An intent has no empty state to start from: what_ starts as a copy (a shared reference) that
// pack() then replaces.
compact_intent_record::compact_intent_record(intent_record r) : what_(r.what) {
  pack(std::move(r));
}

void compact_intent_record::pack(intent_record r) {
  what_ = std::move(r.what);
  created_at_ = r.created_at;
  first_attempt_at_ = r.first_attempt_at.value_or(none);
  finished_at_ = r.finished_at.value_or(none);
  attempts_ = r.attempts;
  attempts_finished_ = r.attempts_finished;
  final_status_ = r.final_status;
  last_class_ = r.last_class;
  last_outcome_ = r.last_outcome;
  state_ = r.state;
  path_bound_ = r.path_bound;
  reached_server_ = r.reached_server;
  if (!r.depends_on && r.final_body.empty() && r.error.empty()) {
    strings_.reset();
    return;
  }
  // A record whose strings are set keeps their holder from event to event (a planned intent
  // has its dependency from the start): allocated once, not again for every event.
  if (!strings_) strings_ = std::make_unique<strings>();
  strings_->depends_on = std::move(r.depends_on);
  strings_->final_body = std::move(r.final_body);
  strings_->error = std::move(r.error);
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

bool compact_intent_record::closed_by(const intent_event& e) const noexcept {
  // The rule reads two facts of the record, both kept here as they are in an intent_record.
  return closes(is_open(), reached_server_ || attempts_ > attempts_finished_, e);
}

void compact_intent_record::apply(const intent_event& e) {
  // An attempt's start and end, two of an intent's usual four events, change only counts and
  // a time: applied in place, where the full record's round trip (take, apply, pack) cost
  // about 400 instructions an event.
  if (const auto* a = std::get_if<events::attempt_started>(&e)) {
    count_start(attempts_, *a);
    if (first_attempt_at_ == none) first_attempt_at_ = a->at;
    return;
  }
  if (const auto* a = std::get_if<events::attempt_finished>(&e)) {
    count_end(attempts_, attempts_finished_, last_class_, reached_server_, *a);
    return;
  }
  intent_record r = take();
  try {
    idem::apply(r, e);
  } catch (...) {  // out of memory: the entry keeps its intent and what apply() had set
    pack(std::move(r));
    throw;
  }
  pack(std::move(r));
}

}  // namespace idem::detail
