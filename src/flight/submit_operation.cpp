// The operation's frame (submit_operation.hpp): how a flight starts and is cancelled, its clocks,
// the requests it builds and sends, and how it finishes. Its writes and their retries are in
// submit_writes.cpp.
#include "flight/submit_operation.hpp"

#include <algorithm>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>

#include "intent/outcome_reason.hpp"
#include "policy/retry_after.hpp"
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
  if (auto* o = obs()) {
    o->on_intent_started(
        trace::intent_started{.ids = ids(),
                              .method = intent_.op().method,
                              .path = intent_.op().path,
                              .earlier_attempts = earlier ? earlier->attempts : 0});
  }
  if (!earlier) {
    events::created created{
        .what = intent_, .principal = core_->credentials_fingerprint, .at = wall_now()};
    if (core_->offline && !core_->store->durable_on_write()) {
      // Offline, the first attempt (the intent's first durable point) may be hours away: the
      // intent is made durable now, and a store that cannot (a full disk) says so at once
      // rather than lose it to a kill while the app believes it queued.
      return write_durably(
          std::move(created), [this] { begin(); }, [] {});
    }
    // Written down before anything is sent: a process killed from here on resumes this key.
    // Not waited for on its own: the first attempt's start is, and a store makes an event
    // durable only with every earlier event of the intent (one commit fewer per intent).
    core_->store->write(std::move(created));
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
  next_attempt();  // which checks the key's age, as before every write
}

bool submit_operation::key_may_be_forgotten() const {
  if (!may_have_executed_ || !first_attempt_at_) return false;
  const auto age = wall_now() - *first_attempt_at_;
  return age >= core_->opts.server_key_retention - core_->opts.key_retention_margin;
}

void submit_operation::check_stale_key() {
  // The server may have forgotten this key: a re-send could execute a second time. Only the
  // lookup can say whether the first execution happened.
  if (!intent_.lookup().enabled()) return finish_stopped(errc::key_retention_passed);
  checking_stale_key_ = true;
  send_lookup();
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

std::string submit_operation::current_secret() const {
  const auto& cred = core_->opts.credentials;
  return cred.provider ? cred.provider() : cred.value;
}

http_request submit_operation::make_request(std::string method, std::string url,
                                            milliseconds timeout, std::string secret) const {
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

void submit_operation::wait(trace::wait_reason why, milliseconds d, std::function<void()> next) {
  if (auto* o = obs()) o->on_wait(trace::wait{.ids = ids(), .reason = why, .delay = d});
  wait(d, std::move(next));
}

std::chrono::microseconds submit_operation::took_since(
    std::chrono::steady_clock::time_point since) const {
  return std::chrono::duration_cast<std::chrono::microseconds>(sched_now() - since);
}

void submit_operation::send(http_request req, void (submit_operation::*on_done)(transport_result)) {
  if (core_->opts.decorate) core_->opts.decorate(req);
  transfer_due_ = saturating_add(sched_now(), req.timeout);
  core_->net->async_send(std::move(req), transfer_done{shared_from_this(), on_done});
}

void submit_operation::finish_stopped(std::optional<errc> why) {
  // Nothing left the machine: safe to report (and resume) as not sent. Anything else may have
  // happened: unresolved, with the last answer we had for context.
  std::string error =
      credentials_moved_ ? std::string(to_string(errc::foreign_credentials)) : std::string();
  errc reason = errc::deadline_too_short;  // no attempt, and nothing else to blame
  if (credentials_moved_) {
    reason = errc::foreign_credentials;
  } else if (cancelled_ || stop_requested_ || total_requested_) {
    reason = errc::cancelled;
  } else if (why) {
    reason = *why;
  } else if (last_failure_) {
    reason = *last_failure_;
  } else if (attempts_ > 0 || !all_not_sent_) {
    reason = errc::no_answer;
  }
  if (all_not_sent_) {
    return finish(outcome_fields{
        .kind = outcome_kind::not_sent, .error = std::move(error), .reason = reason});
  }
  if (!last_answer_) {
    return finish(outcome_fields{
        .kind = outcome_kind::unresolved, .error = std::move(error), .reason = reason});
  }
  if (!error.empty()) last_answer_->error = std::move(error);
  // The last answer is needed no more: the submission ends here.
  return finish(outcome_fields{.kind = outcome_kind::unresolved,
                               .status = last_answer_->status,
                               .body = std::move(last_answer_->body),
                               .problem_type = std::move(last_answer_->problem),
                               .headers = std::move(last_answer_->headers),
                               .error = std::move(last_answer_->error),
                               .reason = reason});
}

void submit_operation::finish(outcome_fields f, bool record) {
  if (finished_) return;
  finished_ = true;
  auto self = shared_from_this();  // the registry may hold the last reference
  f.attempts = attempts_;
  f.key = intent_.key().str();
  f.elapsed = elapsed();
  f.last_transport_error = last_transport_error_;
  if (rare_) {
    f.lookup_status = rare_->lookup_status;
    f.lookup_transport_error = rare_->lookup_transport_error;
  }
  // One spelling per reason: an error's name is its reason; an outcome decided without one
  // named takes it from its answer (a definite 4xx, a problem type).
  if (auto named = reason_named(f.error)) {
    f.reason = *named;
  } else if (!f.reason) {
    f.reason = reason_of_fields(f);
  }
  outcome o(std::move(f));
  if (record) {
    core_->store->write(
        events::outcome_reported{.key = intent_.key(), .at = wall_now(), .result = o});
  }
  if (auto* obs = this->obs()) {
    obs->on_intent_finished(trace::intent_finished{.ids = ids(),
                                                   .kind = o.kind(),
                                                   .reason = o.reason(),
                                                   .status = o.status(),
                                                   .attempts = o.attempts(),
                                                   .elapsed = o.elapsed()});
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
