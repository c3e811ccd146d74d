// submit_operation once writes are over: look the result up by business ID (a GET, retried
// safely within the time left) and decide between succeeded, rejected and unresolved.
#include <algorithm>

#include "flight/submit_operation.hpp"

namespace idem::detail {
namespace asio = boost::asio;
using std::chrono::milliseconds;

void submit_operation::settle() {
  if (all_not_sent_) return finish_stopped();
  if (stopping()) return finish_stopped();
  if (!intent_.lookup().enabled()) return finish_stopped();
  send_lookup();
}

std::chrono::steady_clock::time_point submit_operation::lookup_now() const {
  return deadline_now() + lateness_ + core_->ends.margin();
}

void submit_operation::send_lookup() {
  if (stopping()) return finish_stopped();
  if (park_if_offline(&submit_operation::send_lookup)) return;
  // Judged by lookup_now(): a lookup whose end would be handled after the deadline is not
  // started, and one that is ends early enough for its outcome to be reported by then.
  // One that cannot start after lookups were asked (a backoff that fitted, a thread that woke
  // late) leaves them unanswered: the outcome says so, with what the last one got.
  const auto now = lookup_now();
  if (!deadline_->can_start_lookup(now)) {
    if (rare_ && rare_->lookup_requests > 0) return finish_stopped(errc::lookup_unanswered);
    return finish_stopped();
  }
  auto url = expand_lookup_url(intent_.lookup(), intent_.payload());
  if (!url) {
    // A template naming a value the payload lacks can never be asked: nothing is settled.
    return finish_stopped(errc::lookup_unusable);
  }
  auto req = make_request("GET", absolute(*url), deadline_->lookup_timeout(now));
  auto& rs = rare();
  rs.read_started = sched_now();
  ++rs.lookup_requests;
  if (auto* o = obs()) {
    o->on_lookup_started(trace::lookup_started{
        .ids = ids(),
        .cause = checking_stale_key_ ? trace::lookup_cause::key_retention_passed
                                     : trace::lookup_cause::writes_ended,
        .request = rs.lookup_requests});
  }
  core_->counters.lookups.fetch_add(1, std::memory_order_relaxed);
  core_->ends.lookup_started();
  send(std::move(req), &submit_operation::on_lookup_done);
}

void submit_operation::on_lookup_done(transport_result r) {
  core_->ends.lookup_ended();
  note_lateness(r);
  lookup_judgement j{.verdict = lookup_verdict::retry};
  // Only the last lookup request's: what it got, apart from what the writes got.
  if (r.failure != transport_failure::none) {
    rare().lookup_status = 0;
    rare().lookup_transport_error = r.ec;
  } else {
    rare().lookup_status = r.response.status;
    rare().lookup_transport_error.clear();
    const auto& l = intent_.lookup();
    const lookup_predicate* predicate = nullptr;
    if (!l.predicate.empty()) {
      auto it = core_->opts.lookup_predicates.find(l.predicate);
      if (it != core_->opts.lookup_predicates.end()) predicate = &it->second;
    }
    j = judge_lookup(l, intent_.payload(), r.response.status, r.response.body, predicate);
  }
  if (auto* o = obs()) {
    const bool answered = r.failure == transport_failure::none;
    o->on_lookup_finished(
        trace::lookup_finished{.ids = ids(),
                               .request = rare().lookup_requests,
                               .verdict = j.verdict,
                               .status = answered ? r.response.status : 0,
                               .records = static_cast<std::uint32_t>(j.matches),
                               .transport_error = answered ? std::error_code{} : r.ec,
                               .duration = took_since(rare().read_started)});
  }
  core_->store->write(events::lookup_finished{.key = intent_.key(),
                                              .at = wall_now(),
                                              .verdict = std::string(to_string(j.verdict)),
                                              .status = r.response.status});
  switch (j.verdict) {
    case lookup_verdict::found: {
      // A backend that executed the intent twice: still ours, never silent.
      const auto records = static_cast<std::uint32_t>(j.matches);
      return finish(outcome_fields{.kind = outcome_kind::succeeded,
                                   .status = r.response.status,
                                   .body = std::move(j.record),
                                   .headers = std::move(r.response.headers),
                                   .recovered_by_lookup = true,
                                   .matching_records = records});
    }
    case lookup_verdict::conflicting:
      // The server's own record proves that another intent owns the business ID: ours can
      // never be created under it. Reported with what the server really sent.
      return finish(outcome_fields{.kind = outcome_kind::rejected,
                                   .status = r.response.status,
                                   .body = std::move(j.record),
                                   .headers = std::move(r.response.headers),
                                   .error = std::string(to_string(errc::duplicate_business_id))});
    case lookup_verdict::not_found:
      if (checking_stale_key_) {
        // Proven never executed: the key may be sent again, and the server's retention of it
        // starts again with that write.
        checking_stale_key_ = false;
        first_attempt_at_.reset();
        return next_attempt();
      }
      return finish_stopped(errc::lookup_found_nothing);
    case lookup_verdict::inconclusive:
      // Proves nothing, and asking again will not help: no write, unresolved.
      return finish_stopped(errc::lookup_inconclusive);
    case lookup_verdict::retry:
      break;
  }
  if (stopping()) return finish_stopped();
  // A GET changes nothing: asking again is always safe, within the time left.
  const milliseconds room = deadline_->lookup_sleep_room(lookup_now());
  milliseconds delay = rare().lookups.next_delay(core_->rng);
  if (r.failure == transport_failure::none) {
    if (auto ra = retry_after_of(r.response)) delay = std::max(delay, *ra);
  }
  if (delay > room) return finish_stopped(errc::lookup_unanswered);
  wait(trace::wait_reason::lookup_backoff, delay, [this] { send_lookup(); });
}

}  // namespace idem::detail
