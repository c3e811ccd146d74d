#include "flight/submit_operation.hpp"

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>

#include "idem/retry_after.hpp"
#include "idem/transport_error.hpp"
#include "intent/intent_builder.hpp"
#include "util/http_facts.hpp"
#include "util/saturating_time.hpp"

namespace idem::detail {
namespace asio = boost::asio;
using std::chrono::milliseconds;

submit_operation::submit_operation(std::shared_ptr<client::core> core, intent what,
                                   submit_options options)
    : core_(std::move(core)), intent_(std::move(what)), options_(std::move(options)) {}

submit_operation::rare_state& submit_operation::rare() {
  if (!rare_) rare_ = std::make_unique<rare_state>(core_->opts.backoff);
  return *rare_;
}

// While it lives, the operation's clock readings are taken once and shared (sched_now). It
// leaves the readings as it found them: a handler run inline within another's chain (a
// transport that completes at once) reads afresh and the outer chain keeps its own.
class submit_operation::reading_scope {
 public:
  explicit reading_scope(const submit_operation& op) noexcept
      : op_(op), bits_(op.readings_), steady_(op.steady_reading_), wall_(op.wall_reading_) {
    op_.readings_ = readings_on;
  }
  ~reading_scope() {
    op_.readings_ = bits_;
    op_.steady_reading_ = steady_;
    op_.wall_reading_ = wall_;
  }
  reading_scope(const reading_scope&) = delete;
  reading_scope& operator=(const reading_scope&) = delete;

 private:
  const submit_operation& op_;
  std::uint8_t bits_;
  std::chrono::steady_clock::time_point steady_;
  wall_time wall_;
};

void submit_operation::transfer_done::operator()(transport_result r) const {
  const reading_scope readings(*self);
  ((*self).*on_done)(std::move(r));
}

void submit_operation::start(std::optional<intent_record> earlier) {
  const reading_scope readings(*this);
  start_ = sched_now();
  offline_at_start_ = core_->offline_total(start_);
  deadline_.emplace(start_, options_.deadline.value_or(core_->opts.deadline));
  if (!earlier) {
    // Written down before anything is sent: a process killed from here on resumes this key.
    // Not waited for on its own: the first attempt's start is, and a store makes an event
    // durable only with every earlier event of the intent (one commit fewer per intent).
    core_->store->write(events::created{
        .what = intent_, .principal = core_->credentials_fingerprint, .at = wall_now()});
    return begin();
  }
  earlier_attempts_ = earlier->attempts;
  first_attempt_at_ = earlier->first_attempt_at;
  // An earlier submission (or process) may have reached the server: then nothing this one does
  // makes the intent "not sent", and a duplicate-business-id may be our own order.
  if (earlier->maybe_sent()) {
    all_not_sent_ = false;
    may_have_executed_ = true;
  }
  if (!earlier->path_bound) {
    // A planned intent's path is written down before its first attempt (durable with it).
    core_->store->write(events::path_bound{
        .key = intent_.key(), .op = intent_.op(), .lookup = intent_.lookup(), .at = wall_now()});
  }
  begin();
}

void submit_operation::begin() {
  if (stopping()) return finish_stopped();
  if (may_have_executed_ && first_attempt_at_) {
    const auto age = wall_now() - *first_attempt_at_;
    if (age >= core_->opts.server_key_retention - core_->opts.key_retention_margin) {
      return check_stale_key();
    }
  }
  next_attempt();
}

void submit_operation::check_stale_key() {
  // The server may have forgotten this key: a re-send could execute a second time. Only the
  // lookup can say whether the first execution happened.
  if (!intent_.lookup().enabled()) return finish_stopped();
  checking_stale_key_ = true;
  if (core_->opts.observer) core_->opts.observer->on_lookup_started(intent_.key().str());
  send_lookup();
}

template <class Next, class Undo>
void submit_operation::write_durably(intent_event e, Next next, Undo undo) {
  if (core_->store->durable_on_write()) {
    // Nothing to wait for (a store in memory): on, still on the strand, without a queue hop.
    core_->store->write(std::move(e));
    return next();
  }
  core_->store->async_write(
      std::move(e), core_->ex,
      asio::bind_executor(core_->strand, [self = shared_from_this(), next = std::move(next),
                                          undo = std::move(undo)](std::error_code ec) mutable {
        if (!ec) return next();
        undo();
        self->last_transport_error_ = ec;
        self->finish(outcome_fields{.kind = self->all_not_sent_ ? outcome_kind::not_sent
                                                                : outcome_kind::unresolved,
                                    .error = "journal-write-failed"},
                     /*record=*/false);
      }));
}

void submit_operation::cancel(asio::cancellation_type type) {
  if (finished_) return;
  using ct = asio::cancellation_type;
  if ((type & ct::terminal) != ct::none) {
    cancelled_ = true;
  } else if ((type & ct::partial) != ct::none) {
    stop_requested_ = true;
  } else if ((type & ct::total) != ct::none) {
    if (!all_not_sent_) return;  // something may have reached the server: too late
    total_requested_ = true;
  } else {
    return;
  }
  if (parked_) {
    // Nothing outstanding to complete: waiting for the network (a timer at most, which unpark
    // leaves to complete as stale).
    unpark();
    asio::post(core_->strand, [self = shared_from_this()] { self->finish_stopped(); });
    return;
  }
  // Timers end at once for any type; a transfer honours partial and total only while it has
  // sent nothing (the transport's contract), so an attempt in flight finishes and its answer
  // still counts.
  signal_.emit(type);
}

bool submit_operation::stopping() const noexcept {
  return cancelled_ || stop_requested_ || (total_requested_ && all_not_sent_);
}

void submit_operation::follow(pending_caller c) {
  rare().successors.push_back(std::move(c));
}

wall_time submit_operation::wall_now() const {
  if ((readings_ & readings_on) == 0) return core_->sched->wall_now();
  if ((readings_ & wall_read) == 0) {
    wall_reading_ = core_->sched->wall_now();
    readings_ |= wall_read;
  }
  return wall_reading_;
}

std::chrono::steady_clock::time_point submit_operation::sched_now() const {
  if ((readings_ & readings_on) == 0) return core_->sched->now();
  if ((readings_ & steady_read) == 0) {
    steady_reading_ = core_->sched->now();
    readings_ |= steady_read;
  }
  return steady_reading_;
}

milliseconds submit_operation::elapsed() const {
  return std::chrono::duration_cast<milliseconds>(sched_now() - start_);
}

bool submit_operation::failed_attempts_exhausted() const {
  const auto& max_failed = core_->opts.max_failed_attempts;
  return max_failed && failed_ >= *max_failed;
}

std::string submit_operation::absolute(const std::string& path_or_url) const {
  if (path_or_url.find("://") != std::string::npos) return path_or_url;
  const bool slash = !path_or_url.empty() && path_or_url.front() != '/';
  // One allocation (base + path would copy the base, then grow it).
  std::string url;
  url.reserve(core_->base_url.size() + 1 + path_or_url.size());
  url.append(core_->base_url);
  if (slash) url.push_back('/');
  return url.append(path_or_url);
}

bool submit_operation::same_origin(const std::string& url) const {
  const std::string& base = core_->base_url;
  return url.compare(0, base.size(), base) == 0 &&
         (url.size() == base.size() || url[base.size()] == '/' || url[base.size()] == '?');
}

http_request submit_operation::make_request(std::string method, std::string url,
                                            milliseconds timeout) const {
  http_request req;
  req.method = std::move(method);
  req.url = std::move(url);
  req.timeout = timeout;
  // The app's headers, then up to five of ours (credentials, Accept; a write adds the key,
  // Content-Type and Prefer): one allocation rather than the vector's growth.
  req.headers.reserve(core_->opts.headers.size() + options_.headers.size() + 5);
  req.headers = core_->opts.headers;
  req.headers.insert(req.headers.end(), options_.headers.begin(), options_.headers.end());
  const auto& cred = core_->opts.credentials;
  std::string secret = cred.provider ? cred.provider() : cred.value;
  // The credentials go only to the API's own origin (a 202's Location elsewhere is never
  // polled, but a lookup URL may be absolute).
  if (!secret.empty() && same_origin(req.url)) {
    req.headers.emplace_back(cred.header, std::move(secret));
  }
  req.headers.emplace_back("Accept", "application/json");
  return req;
}

std::optional<milliseconds> submit_operation::retry_after_of(const http_response& r) const {
  const std::string* value = r.header("Retry-After");
  if (!value) return std::nullopt;
  const std::string* date = r.header("Date");
  return parse_retry_after(*value, date ? std::optional<std::string_view>(*date) : std::nullopt,
                           wall_now());
}

void submit_operation::wait(milliseconds d, std::function<void()> next) {
  core_->sched->async_wait(
      d, asio::bind_cancellation_slot(
             signal_.slot(),
             asio::bind_executor(core_->strand, [self = shared_from_this(),
                                                 next = std::move(next)](std::error_code) {
               if (self->stopping()) return self->finish_stopped();
               next();
             })));
}

void submit_operation::send(http_request req, void (submit_operation::*on_done)(transport_result)) {
  if (core_->opts.decorate) core_->opts.decorate(req);
  transfer_due_ = saturating_add(sched_now(), req.timeout);
  core_->net->async_send(std::move(req), transfer_done{shared_from_this(), on_done});
}

void submit_operation::next_attempt() {
  if (stopping()) return finish_stopped();
  if (park_if_offline(&submit_operation::next_attempt)) return;
  // One reading of each clock for the attempt's checks, its timeout and its journal line: a
  // clock read costs about 25 ns on the development VM, where curl itself reads the clock about
  // 35 times a request, and the reads were a visible share of an intent's CPU time.
  const auto now = deadline_now();
  if (!deadline_->can_start_attempt(now)) return settle();
  send_write(now);
}

void submit_operation::send_write(std::chrono::steady_clock::time_point now) {
  const milliseconds timeout = deadline_->attempt_timeout(now);
  auto req = make_request(intent_.op().method, absolute(intent_.op().path), timeout);
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
  const auto now = sched_now();
  if (attempts_ == 1) {
    core_->budget.on_first_attempt(now);
  } else {
    core_->counters.retries.fetch_add(1, std::memory_order_relaxed);
  }
  core_->counters.attempts.fetch_add(1, std::memory_order_relaxed);
  attempt_started_ = now;
  if (core_->opts.observer) {
    core_->opts.observer->on_attempt_started(intent_.key().str(), intent_.op().method,
                                             intent_.op().path, attempts_);
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
    a.cls = classify(attempt_facts{r.failure, 0, {}});
  } else {
    a = classify_answer(std::move(r.response));
    for (const char* name : {"Request-Id", "X-Request-Id"}) {
      if (const std::string* id = find_header(a.headers, name); id && request_id.empty()) {
        request_id = *id;
      }
    }
  }
  if (core_->opts.observer) {
    core_->opts.observer->on_attempt_finished(
        intent_.key().str(), a.cls, a.status,
        r.failure == transport_failure::none ? std::error_code{} : r.ec);
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
        keep_as_last(a);
        return begin_polling(location);
      }
      return finish(outcome_fields{.kind = outcome_kind::succeeded,
                                   .status = a.status,
                                   .body = std::move(a.body),
                                   .problem_type = std::move(a.problem),
                                   .headers = std::move(a.headers),
                                   .replayed = a.replayed});
    case attempt_class::client_bug: {
      std::string error =
          a.error.empty() ? std::string(problem_name(a.problem)) : std::move(a.error);
      if (error.empty()) error = "idempotency-key-misuse";
      return finish(outcome_fields{.kind = outcome_kind::rejected,
                                   .status = a.status,
                                   .body = std::move(a.body),
                                   .problem_type = a.problem,
                                   .headers = std::move(a.headers),
                                   .error = std::move(error)});
    }
    case attempt_class::business_conflict:
      // Our own earlier attempt may have created it (e.g. its key's record expired since):
      // only the lookup can tell ours from someone else's.
      if (may_have_executed_before) {
        keep_as_last(a);
        return settle();
      }
      [[fallthrough]];
    case attempt_class::rejected:
      return finish(outcome_fields{.kind = outcome_kind::rejected,
                                   .status = a.status,
                                   .body = std::move(a.body),
                                   .problem_type = std::move(a.problem),
                                   .headers = std::move(a.headers),
                                   .replayed = a.replayed});
    case attempt_class::not_sent:
    case attempt_class::unknown:
    case attempt_class::not_processed:
    case attempt_class::in_progress: {
      const auto retry_after = a.retry_after;
      keep_as_last(a);
      if (polling_) return failed_attempts_exhausted() ? settle() : schedule_poll();
      return schedule_retry(retry_after);
    }
  }
}

void submit_operation::schedule_retry(std::optional<milliseconds> retry_after) {
  if (stopping()) return finish_stopped();
  if (failed_attempts_exhausted()) return settle();
  const auto now = deadline_now();
  // A server that asks for more than the time left will not take our write in time: stop
  // writing now and keep the time for the lookup.
  if (retry_after && !deadline_->sleep_fits(*retry_after, now)) return settle();
  milliseconds delay = rare().retries.next_delay(core_->rng);
  if (retry_after) delay = std::max(delay, *retry_after);
  if (!deadline_->sleep_fits(delay, now)) {
    // Trim the jitter so that one more attempt still fits; never below Retry-After (it fits).
    // No room at all would mean back-to-back attempts at the very end of the window.
    const milliseconds room = deadline_->sleep_room(now);
    if (room <= milliseconds{0}) return settle();
    delay = room;
  }
  if (core_->opts.observer) core_->opts.observer->on_backoff(intent_.key().str(), delay);
  core_->store->write(events::waited{.key = intent_.key(), .at = wall_now(), .delay = delay});
  wait(delay, [this] { acquire_token(); });
}

void submit_operation::acquire_token() {
  const auto now = sched_now();
  if (core_->budget.try_spend(now)) return next_attempt();
  // An empty budget means "not now", not "never": wait for the trickle within the deadline.
  const milliseconds until = std::max(core_->budget.time_until_token(now), milliseconds{1});
  if (!deadline_->sleep_fits(until, deadline_now())) return settle();
  if (core_->opts.observer) core_->opts.observer->on_backoff(intent_.key().str(), until);
  core_->store->write(events::waited{.key = intent_.key(), .at = wall_now(), .delay = until});
  wait(until, [this] { acquire_token(); });
}

void submit_operation::finish_stopped() {
  // Nothing left the machine: safe to report (and resume) as not sent. Anything else may have
  // happened: unresolved, with the last answer we had for context.
  if (all_not_sent_) {
    return finish(outcome_fields{.kind = outcome_kind::not_sent});
  }
  if (!last_answer_) return finish(outcome_fields{.kind = outcome_kind::unresolved});
  // The last answer is needed no more: the submission ends here.
  return finish(outcome_fields{.kind = outcome_kind::unresolved,
                               .status = last_answer_->status,
                               .body = std::move(last_answer_->body),
                               .problem_type = std::move(last_answer_->problem),
                               .headers = std::move(last_answer_->headers)});
}

void submit_operation::finish(outcome_fields f, bool record) {
  if (finished_) return;
  finished_ = true;
  auto self = shared_from_this();  // the registry may hold the last reference
  f.attempts = attempts_;
  f.key = intent_.key().str();
  f.elapsed = elapsed();
  f.last_transport_error = last_transport_error_;
  outcome o(std::move(f));
  if (record) {
    core_->store->write(
        events::outcome_reported{.key = intent_.key(), .at = wall_now(), .result = o});
  }
  if (core_->opts.observer) {
    core_->opts.observer->on_outcome(intent_.key().str(), o.kind(), o.elapsed());
  }
  auto& c = core_->counters;
  switch (o.kind()) {
    case outcome_kind::succeeded:
      c.succeeded.fetch_add(1, std::memory_order_relaxed);
      break;
    case outcome_kind::rejected:
      c.rejected.fetch_add(1, std::memory_order_relaxed);
      break;
    case outcome_kind::not_sent:
      c.not_sent.fetch_add(1, std::memory_order_relaxed);
      break;
    case outcome_kind::unresolved:
      c.unresolved.fetch_add(1, std::memory_order_relaxed);
      break;
  }
  if (o.recovered_by_lookup()) c.recovered_by_lookup.fetch_add(1, std::memory_order_relaxed);
  if (parked_) unpark();
  core_->flights.erase(intent_.key().str(), this);
  auto waiters = std::move(waiters_);
  waiters_.clear();
  for (auto& w : waiters)
    deliver(std::move(w.handler), o, core_->ex);
  // Submissions that arrived while this flight was being cancelled start now, against the
  // store's record of everything this flight did.
  if (rare_ && !rare_->successors.empty()) admit(core_, intent_, std::move(rare_->successors));
  core_->flight_ended(stopped_at_start_);
}

}  // namespace idem::detail
