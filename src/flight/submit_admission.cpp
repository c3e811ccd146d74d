// A submission reaching the client's strand: single flight, the store's word on the intent,
// and the start of a new flight.
#include "flight/submit_operation.hpp"
#include "intent/outcome_reason.hpp"
#include "util/request_digest.hpp"

namespace idem::detail {
namespace {

void answer_all(const std::shared_ptr<client::core>& core, pending_callers& callers,
                const outcome& o) {
  for (auto& c : callers)
    deliver(std::move(c.handler), o, core->ex);
}

// The same request as the one journaled under the key: method and exact body bytes, and the
// path unless the journaled one is a plan whose path is still to be filled in.
bool same_as_recorded(const intent_record& r, const intent& i) {
  if (r.details_forgotten) {
    // The store keeps a digest of the request in its place (a final intent past the memory
    // store's retention window).
    return r.request_digest == request_digest(i.op().method, i.op().path, i.body());
  }
  return r.what.op().method == i.op().method && r.what.body() == i.body() &&
         (!r.path_bound || r.what.op().path == i.op().path);
}

outcome recorded_outcome(const intent_record& r) {
  switch (r.state) {
    case intent_state::succeeded:
      return outcome(outcome_fields{.kind = outcome_kind::succeeded,
                                    .status = r.final_status,
                                    .body = r.final_body,
                                    .key = r.what.key().str()});
    case intent_state::rejected:
      return outcome(outcome_fields{.kind = outcome_kind::rejected,
                                    .status = r.final_status,
                                    .body = r.final_body,
                                    .key = r.what.key().str(),
                                    .error = r.error});
    case intent_state::abandoned:
    case intent_state::open:
      break;
  }
  // Abandoned (resume gave it up): never sent again under this key.
  return outcome(outcome_fields{.kind = outcome_kind::not_sent,
                                .key = r.what.key().str(),
                                .error = r.error,
                                .reason = r.error.empty() ? std::error_code(errc::abandoned)
                                                          : reason_of_fields({.error = r.error})});
}

}  // namespace

void admit(const std::shared_ptr<client::core>& core, const intent& what, pending_callers callers) {
  auto refuse = [&](errc why) {
    const std::string error(to_string(why));
    answer_all(core, callers,
               outcome(outcome_fields{.kind = outcome_kind::rejected,
                                      .key = what.key().str(),
                                      .error = error,
                                      .reason = why}));
  };
  if (auto running = core->flights.find(what.key().str())) {
    // The same key with another request would be answered 422 by the server; refuse locally
    // and loudly instead of joining a flight that is not ours.
    if (!running->what().same_request(what)) return refuse(errc::idempotency_key_mismatch);
    for (auto& c : callers) {
      if (running->stopping()) {
        running->follow(std::move(c));
      } else {
        running->join(std::move(c.handler), c.cancellation);
      }
    }
    return;
  }
  auto earlier = core->store->find(what.key());
  if (earlier) {
    // A key belongs to the credentials it was first written down with; under others it would
    // be an unrelated request on the server, so a resumed intent could execute twice.
    if (earlier->principal != core->credentials_fingerprint)
      return refuse(errc::foreign_credentials);
    if (!earlier->path_bound && what.op().path == earlier->what.op().path) {
      // A plan's draft, its path still the template: only planned_intent::bind() makes it a
      // request. Nothing is sent and nothing recorded; the plan stays open for its bind.
      answer_all(core, callers,
                 outcome(outcome_fields{.kind = outcome_kind::not_sent,
                                        .key = what.key().str(),
                                        .error = std::string(to_string(errc::unbound_plan)),
                                        .reason = errc::unbound_plan}));
      return;
    }
    if (!same_as_recorded(*earlier, what)) return refuse(errc::idempotency_key_mismatch);
    if (!earlier->is_open()) {
      answer_all(core, callers, recorded_outcome(*earlier));
      return;
    }
  }
  auto op = std::make_shared<submit_operation>(core, what, callers.front().options);
  core->flights.insert(op);
  for (auto& c : callers)
    op->join(std::move(c.handler), c.cancellation);
  if (core->shutting_down.load(std::memory_order_acquire)) op->stop_at_start();
  op->start(std::move(earlier));
}

}  // namespace idem::detail
