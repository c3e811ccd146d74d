// A flight's writes (submit_operation.hpp): each attempt of the POST under the intent's key, what
// its answer means (classify_answer, handle_answer), and the wait before the next one (backoff,
// Retry-After, the retry budget), all within the deadline.
#include <algorithm>

#include "flight/credentials_principal.hpp"
#include "flight/submit_operation.hpp"
#include "idem/transport_error.hpp"
#include "intent/intent_builder.hpp"
#include "intent/outcome_reason.hpp"
#include "util/http_facts.hpp"

namespace idem::detail {
namespace asio = boost::asio;
using std::chrono::milliseconds;

void submit_operation::next_attempt() {
  if (stopping()) return finish_stopped();
  if (park_if_offline(&submit_operation::next_attempt)) return;
  // Before every write, not only a submission's first: an offline wait, a suspend or a long
  // backoff can age the key past the server's retention in the middle of a flight.
  if (key_may_be_forgotten()) return check_stale_key();
  // One reading of each clock for the attempt's checks, its timeout and its journal line: a
  // clock read costs about 25 ns on the development VM, where curl itself reads the clock about
  // 35 times a request, and the reads were a visible share of an intent's CPU time.
  const auto now = deadline_now();
  if (!deadline_->can_start_attempt(now)) return settle();
  send_write(now);
}

void submit_operation::send_write(std::chrono::steady_clock::time_point now) {
  const milliseconds timeout = deadline_->attempt_timeout(now);
  std::string secret = current_secret();
  // A provider's value that now belongs to another principal (a refresh to another account's
  // token, or one the fingerprint no longer matches): the key is never sent under it. The
  // lookup (it carries no key) may still settle the intent; else it stays open for a resume
  // with its own credentials.
  if (of_another_principal(core_->opts.credentials, secret, core_->opts.key_header,
                           core_->credentials_fingerprint)) {
    credentials_moved_ = true;
    return settle();
  }
  auto req =
      make_request(intent_.op().method, absolute(intent_.op().path), timeout, std::move(secret));
  req.headers.emplace_back(core_->opts.key_header, intent_.key().str());
  req.headers.emplace_back("Content-Type", "application/json");
  // Ask the server to wait for a busy first execution rather than answer 409 at once; sized so
  // that its answer still arrives within this attempt's timeout (the server caps it at 10 s).
  // Only a key sent before can be busy: its first attempt ever (none in this submission, none
  // in the store's record) goes without, which spares every first attempt the header.
  const bool key_sent_before = earlier_attempts_ + attempts_ > 0;
  const auto wait_s =
      key_sent_before ? std::min<long long>(10, (timeout.count() - 1000) / 1000) : 0;
  std::string prefer;
  if (wait_s > 0) prefer = "wait=" + std::to_string(wait_s);
  if (core_->opts.prefer_async) prefer += prefer.empty() ? "respond-async" : ", respond-async";
  if (!prefer.empty()) req.headers.emplace_back("Prefer", std::move(prefer));
  req.body = detail::intent_builder::body_of(intent_);  // shared, not copied

  ++attempts_;
  const wall_time at = wall_now();
  if (!first_attempt_at_) first_attempt_at_ = at;
  // Durable before the first byte leaves: a process that dies from here on counts this
  // attempt as maybe sent.
  write_durably(
      events::attempt_started{
          .key = intent_.key(), .number = earlier_attempts_ + attempts_, .at = at},
      [this, req = std::move(req)]() mutable { send_write_journaled(std::move(req)); },
      [this] { unsent_attempt("journal write failed"); });
}

void submit_operation::unsent_attempt(const char* why) {
  // Recorded as started, never left: close it, or the intent would count as maybe sent.
  core_->store->write(events::attempt_finished{.key = intent_.key(),
                                               .number = earlier_attempts_ + attempts_,
                                               .at = wall_now(),
                                               .cls = attempt_class::not_sent,
                                               .transport_error = why});
  --attempts_;
}

void submit_operation::send_write_journaled(http_request req) {
  if (stopping()) {
    unsent_attempt("cancelled before sending");
    return finish_stopped();
  }
  if (!core_->store->durable_on_write()) {
    // The journal's commit took its time out of the deadline: what is left now decides whether
    // the attempt still goes, and how long it may take (a slow commit must not push the attempt
    // past the lookup's reserve, nor the outcome past the deadline).
    const auto left_from = deadline_now();
    if (!deadline_->can_start_attempt(left_from)) {
      unsent_attempt("the journal's commit took the time left for the attempt");
      return settle();
    }
    req.timeout = std::min(req.timeout, deadline_->attempt_timeout(left_from));
  }
  const auto now = sched_now();
  if (attempts_ == 1) {
    core_->budget.on_first_attempt(now);
  } else {
    core_->counters.retries.fetch_add(1, std::memory_order_relaxed);
  }
  core_->counters.attempts.fetch_add(1, std::memory_order_relaxed);
  attempt_started_ = now;
  if (auto* o = obs()) {
    o->on_attempt_started(trace::attempt_started{.ids = ids(),
                                                 .method = intent_.op().method,
                                                 .path = intent_.op().path,
                                                 .attempt = attempts_});
  }
  send(std::move(req), &submit_operation::on_write_done);
}

submit_operation::answer submit_operation::classify_answer(http_response r) const {
  answer a;
  a.status = r.status;
  answer_meaning m = core_->opts.profile.classify(answer_view{r.status, r.headers, r.body});
  a.cls = m.cls;
  a.problem = std::move(m.problem);
  a.error = std::move(m.error);
  a.replayed = core_->opts.profile.replayed(r.headers);
  a.proven = a.replayed;
  a.retry_after = retry_after_of(r);
  a.body = std::move(r.body);
  a.headers = std::move(r.headers);
  return a;
}

void submit_operation::note_lateness(const transport_result& r) {
  // Only a timeout says when its end was due. Any other end leaves the lateness unknown: an
  // earlier sample, perhaps seconds old, no longer says how busy the thread is now.
  if (r.failure == transport_failure::none || r.ec != std::errc::timed_out) {
    lateness_ = std::chrono::steady_clock::duration{0};
    return;
  }
  const auto now = sched_now();
  lateness_ = std::max(now - transfer_due_, std::chrono::steady_clock::duration{0});
  core_->ends.on_timed_out(now, lateness_);
}

void submit_operation::on_write_done(transport_result r) {
  note_lateness(r);
  answer a;
  std::string request_id;
  if (r.failure != transport_failure::none) {
    last_transport_error_ = r.ec;
    last_failure_ = reason_of_transport(r.ec);
    a.cls = classify(attempt_facts{r.failure, 0, {}});
  } else {
    a = classify_answer(std::move(r.response));
    for (const char* name : {"Request-Id", "X-Request-Id"}) {
      if (const std::string* id = find_header(a.headers, name); id && request_id.empty()) {
        request_id = *id;
      }
    }
  }
  if (auto* o = obs()) {
    o->on_attempt_finished(trace::attempt_finished{
        .ids = ids(),
        .attempt = attempts_,
        .cls = a.cls,
        .status = a.status,
        .replayed = a.replayed,
        .transport_error = r.failure == transport_failure::none ? std::error_code{} : r.ec,
        .duration = took_since(attempt_started_)});
  }
  core_->store->write(events::attempt_finished{
      .key = intent_.key(),
      .number = earlier_attempts_ + attempts_,
      .at = wall_now(),
      .cls = a.cls,
      .status = a.status,
      .request_id = std::move(request_id),
      .problem_type = a.problem,
      .transport_error = r.failure == transport_failure::none ? std::string{} : r.ec.message(),
      .took = std::chrono::duration_cast<milliseconds>(sched_now() - attempt_started_)});
  if (a.cls != attempt_class::not_sent) all_not_sent_ = false;
  const bool before = may_have_executed_;
  if (may_have_executed(a.cls)) may_have_executed_ = true;
  // Dropped by the app's on_foreground, not by the network or the server: sent again at
  // once, failing nothing.
  const bool dropped = r.ec == transport_errc::connections_reset;
  if ((a.cls == attempt_class::not_sent || a.cls == attempt_class::unknown) && !dropped) ++failed_;
  if (dropped && !polling_ && !stopping()) return redrive();
  // A request that cannot be sent as given (malformed URL, unsupported scheme) never will be,
  // and a refused certificate is refused again: no retry can heal either.
  if (a.cls == attempt_class::not_sent &&
      (r.ec == transport_errc::invalid_request || r.ec == transport_errc::certificate_rejected)) {
    return finish_stopped();
  }
  handle_answer(std::move(a), before);
}

void submit_operation::handle_answer(answer a, bool may_have_executed_before) {
  // The last answer is kept, for an unresolved outcome's context, only where the submission
  // goes on, and moved there: a copy of every answer's body and headers cost an allocation each.
  auto keep_as_last = [this](answer& kept) {
    if (kept.status != 0) last_answer_ = std::make_unique<answer>(std::move(kept));
  };
  switch (a.cls) {
    case attempt_class::succeeded:
      if (a.status == 202) {
        const std::string* where = find_header(a.headers, "Location");
        std::string location = where ? *where : std::string();
        last_failure_ = errc::still_in_progress;
        keep_as_last(a);
        return begin_polling(location);
      }
      return finish(outcome_fields{.kind = outcome_kind::succeeded,
                                   .status = a.status,
                                   .body = std::move(a.body),
                                   .problem_type = std::move(a.problem),
                                   .headers = std::move(a.headers),
                                   .replayed = a.replayed});
    case attempt_class::client_bug:
    case attempt_class::business_conflict:
    case attempt_class::rejected:
      if (a.cls == attempt_class::client_bug) {
        if (a.error.empty()) a.error = std::string(problem_name(a.problem));
        if (a.error.empty()) a.error = "idempotency-key-misuse";
      }
      // A verdict is a proof (contract section 8). After an attempt that may have executed,
      // only the server's record of this key (a replay) says anything about it: any other
      // answer (a 401 while a token refreshes, a gateway's 403 or 404, a 409 for our own order
      // once its key expired, a 422...) stops the writes, and the lookup decides.
      if (may_have_executed_before && !a.proven) {
        last_failure_ = reason_of_answer(a);
        keep_as_last(a);
        return settle();
      }
      // The same name whether the server's 409 says it or the lookup proves it.
      if (a.cls == attempt_class::business_conflict) {
        a.error = std::string(to_string(errc::duplicate_business_id));
      }
      return finish(outcome_fields{.kind = outcome_kind::rejected,
                                   .status = a.status,
                                   .body = std::move(a.body),
                                   .problem_type = std::move(a.problem),
                                   .headers = std::move(a.headers),
                                   .replayed = a.replayed,
                                   .error = std::move(a.error)});
    case attempt_class::not_sent:
    case attempt_class::unknown:
    case attempt_class::not_processed:
    case attempt_class::in_progress: {
      if (a.status != 0) last_failure_ = reason_of_answer(a);
      const auto retry_after = a.retry_after;
      keep_as_last(a);
      if (polling_) return failed_attempts_exhausted() ? settle() : schedule_poll();
      return schedule_retry(retry_after);
    }
  }
}

errc submit_operation::reason_of_answer(const answer& a) {
  switch (a.cls) {
    case attempt_class::client_bug:
      return reason_named(a.error).value_or(errc::idempotency_key_misuse);
    case attempt_class::business_conflict:
      return errc::duplicate_business_id;
    case attempt_class::rejected:
      return problem_name(a.problem) == "invalid-state-transition" ? errc::invalid_state
                                                                   : errc::rejected;
    case attempt_class::in_progress:
      return errc::still_in_progress;
    case attempt_class::succeeded:  // a 202 being polled
      return errc::still_in_progress;
    case attempt_class::not_processed:
    case attempt_class::unknown:
    case attempt_class::not_sent:
      return a.status == 429 ? errc::rate_limited : errc::server_error;
  }
  return errc::server_error;
}

void submit_operation::schedule_retry(std::optional<milliseconds> retry_after) {
  if (stopping()) return finish_stopped();
  if (failed_attempts_exhausted()) return settle();
  const auto now = deadline_now();
  // A server that asks for more than the time left will not take our write in time: stop
  // writing now and keep the time for the lookup.
  if (retry_after && !deadline_->sleep_fits(*retry_after, now)) return settle();
  milliseconds delay = rare().retries.next_delay(core_->rng);
  auto why = trace::wait_reason::backoff;
  if (retry_after && *retry_after > delay) {
    delay = *retry_after;
    why = trace::wait_reason::retry_after;
  }
  if (!deadline_->sleep_fits(delay, now)) {
    // Trim the jitter so that one more attempt still fits; never below Retry-After (it fits).
    // No room at all would mean back-to-back attempts at the very end of the window.
    const milliseconds room = deadline_->sleep_room(now);
    if (room <= milliseconds{0}) return settle();
    delay = room;
  }
  core_->store->write(events::waited{.key = intent_.key(), .at = wall_now(), .delay = delay});
  wait(why, delay, [this] { acquire_token(); });
}

void submit_operation::acquire_token() {
  const auto now = sched_now();
  if (core_->budget.try_spend(now)) return next_attempt();
  // An empty budget means "not now", not "never": wait for the trickle within the deadline.
  const milliseconds until = std::max(core_->budget.time_until_token(now), milliseconds{1});
  if (!deadline_->sleep_fits(until, deadline_now())) return settle();
  core_->store->write(events::waited{.key = intent_.key(), .at = wall_now(), .delay = until});
  wait(trace::wait_reason::retry_budget, until, [this] { acquire_token(); });
}

}  // namespace idem::detail
