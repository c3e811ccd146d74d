#pragma once
// Internal: one submission of one intent (a "flight"): the retry loop, the 202 polling and the
// lookup by business ID, as a small state machine on the client's strand. Callers that submit
// the same intent while it is in flight join it as extra waiters.
// The class is defined across six files, one per phase: submit_operation.cpp (start, cancel,
// clocks, requests, finish), submit_writes.cpp (writes and their retries), submit_polling.cpp
// (after a 202), submit_lookup.cpp (lookup by business ID), submit_waiters.cpp (callers:
// completion, cancellation, joining) and submit_parking.cpp (waiting for the network, and the
// deadline's clock while offline); submit_admission.cpp admits a submission into its flight.

#include <boost/asio/any_completion_executor.hpp>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/cancellation_type.hpp>
#include <boost/container/small_vector.hpp>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "flight/client_core.hpp"
#include "policy/deadline.hpp"
#include "util/strand_ref.hpp"

namespace idem::detail {

using outcome_handler = boost::asio::any_completion_handler<void(outcome)>;

// Completes `h` with `o`: posted (never inline) to its associated executor.
void deliver(outcome_handler h, outcome o, const boost::asio::any_io_executor& fallback);

class submit_operation;

// A caller's cancellation, shared by its slot handler (installed at once, on the caller's
// thread) and the flight it joins later (on the strand), so that a cancel emitted before the
// submission reaches the strand is not lost. `requested` (the cancellation_type bits, 0 for
// none) is set at once on the emitting thread; `flight` and `waiter` (whom a cancel concerns,
// once the caller has joined) are touched only on the strand.
struct waiter_cancellation {
  std::atomic<unsigned> requested{0};
  std::weak_ptr<submit_operation> flight;
  std::uint64_t waiter = 0;
};

// A caller waiting for a flight to start (behind a flight that is being cancelled).
struct pending_caller {
  outcome_handler handler;
  std::shared_ptr<waiter_cancellation> cancellation;
  submit_options options{};  // used when this caller starts the flight; a joiner's are ignored
};

// The callers of one admission: nearly always the one submission, held in place.
using pending_callers = boost::container::small_vector<pending_caller, 1>;

// Installs the caller's slot handler, if it has a slot (nullptr if not: nothing can cancel the
// caller). Call before posting to the strand.
std::shared_ptr<waiter_cancellation> watch_cancellation(const outcome_handler& h,
                                                        const std::shared_ptr<client::core>& core);

// A submission of `what` reaches the strand: joins the intent's flight, waits behind a flight
// being cancelled, answers from the store (final, foreign credentials, another request under
// the key), or starts a new flight. On the strand only.
void admit(const std::shared_ptr<client::core>& core, const intent& what, pending_callers callers);

class submit_operation : public std::enable_shared_from_this<submit_operation> {
 public:
  submit_operation(std::shared_ptr<client::core> core, intent what, submit_options options);
  [[nodiscard]] const intent& what() const noexcept { return intent_; }
  // All: on the strand only.
  // `earlier`: the store's record of the intent (nullopt: new, written down before sending).
  void start(std::optional<intent_record> earlier);
  void join(outcome_handler h, const std::shared_ptr<waiter_cancellation>& cancellation);
  // Stops the loop as `type` asks (see client::async_submit); terminal on client shutdown.
  void cancel(boost::asio::cancellation_type type = boost::asio::cancellation_type::terminal);
  // Before start(): the client is shutting down, so the flight stops at once (not_sent) and is
  // counted as stopped by that shutdown's report.
  void stop_at_start() {
    stopped_at_start_ = true;
    cancel(boost::asio::cancellation_type::terminal);
  }
  // The flight is being cancelled: a new submission of its intent waits for it to unwind (and
  // record what it did), then starts a flight of its own.
  [[nodiscard]] bool stopping() const noexcept;
  void follow(pending_caller c);
  // The network is back: go on after `delay` (core::resume_delay). A no-op unless parked.
  void resume(std::chrono::milliseconds delay);
  // The caller `id` cancelled (`type`); on the strand.
  void on_waiter_cancelled(std::uint64_t id, boost::asio::cancellation_type type);

 private:
  struct waiter {
    std::uint64_t id;
    outcome_handler handler;
    boost::asio::any_completion_executor work;  // tracks outstanding work
  };
  // One answer to our POST (directly, or the final response found by polling a 202).
  struct answer {
    attempt_class cls = attempt_class::unknown;
    int status = 0;
    std::string body;
    std::string problem;
    bool replayed = false;
    // The server's record of this key's one execution answered (a replay, or the status
    // resource after a 202): proof about every earlier attempt, unlike any other answer.
    bool proven = false;
    std::optional<std::chrono::milliseconds> retry_after;
    std::string error;    // a client bug in words (answer_meaning::error)
    header_list headers;  // Location among them, for a 202's polling
  };

  void begin();
  // Writes `e` durably, then calls `next()` on the strand; a failed write calls `undo()` and
  // ends the submission before anything more is sent. With a store in memory `next` runs at
  // once, never type-erased or moved to the heap (it may carry the request).
  template <class Next, class Undo>
  void write_durably(intent_event e, Next next, Undo undo);
  void unsent_attempt(const char* why);
  void check_stale_key();
  // An attempt under this key may have executed, and its first one was sent so long ago that
  // the server may have forgotten the key (client_options::server_key_retention, less the
  // margin): the next write needs the lookup's proven absence first (contract section 8).
  [[nodiscard]] bool key_may_be_forgotten() const;
  void next_attempt();
  // `now`: deadline_now(), as next_attempt() just read it.
  void send_write(std::chrono::steady_clock::time_point now);
  void send_write_journaled(http_request req);
  void on_write_done(transport_result r);
  void handle_answer(answer a, bool may_have_executed_before);
  // The reason an answer gives when the flight ends on it without a verdict.
  [[nodiscard]] static errc reason_of_answer(const answer& a);
  void schedule_retry(std::optional<std::chrono::milliseconds> retry_after);
  void acquire_token();
  void begin_polling(const std::string& location);
  void schedule_poll();
  void poll_once();
  void on_poll_done(transport_result r);
  void settle();  // writes are over: decide, via the lookup if needed
  void send_lookup();
  void on_lookup_done(transport_result r);
  // Ends the flight without a verdict: not_sent if nothing may have left, else unresolved.
  // `why`: the reason when the caller knows it (a lookup's verdict, offline...); else the
  // cancellation, or the last write's failure, or (no attempt at all) the deadline.
  void finish_stopped(std::optional<errc> why = std::nullopt);
  // `record` false: the outcome is the caller's answer but no state change of the intent (a
  // refusal before sending must not close an intent whose earlier attempts may have executed).
  void finish(outcome_fields f, bool record = true);
  // The scheduler's clocks. Inside a reading_scope (one handler's synchronous chain: a
  // flight's start, an attempt's end) each is read once and that reading is shared; outside,
  // every call reads afresh.
  [[nodiscard]] wall_time wall_now() const;
  [[nodiscard]] std::chrono::steady_clock::time_point sched_now() const;
  class reading_scope;
  void wait(std::chrono::milliseconds d, std::function<void()> next);
  // The same, told to the observer as a wait for `why` (trace::wait).
  void wait(trace::wait_reason why, std::chrono::milliseconds d, std::function<void()> next);
  // The observer (nullptr: none) and what every event of this flight names.
  [[nodiscard]] observer* obs() const noexcept { return core_->opts.observer.get(); }
  [[nodiscard]] trace::intent_ids ids() const {
    return {intent_.key().str(), intent_.business_id()};
  }
  // Time since `since` on the scheduler's clock, as an event's duration.
  [[nodiscard]] std::chrono::microseconds took_since(
      std::chrono::steady_clock::time_point since) const;
  // Sends `req` as the one transfer outstanding (cancellable), then calls on_done on the strand.
  void send(http_request req, void (submit_operation::*on_done)(transport_result));
  // The transfer's completion handler: on_done of the operation, on the client's strand, with
  // the operation's cancellation slot. Both are asked of the operation when Asio asks for them,
  // not carried: bind_executor's binder copied the strand (an atomic count and a type-erased
  // executor copy) on each of the seven moves between here and the transport.
  struct transfer_done {
    std::shared_ptr<submit_operation> self;
    void (submit_operation::*on_done)(transport_result);

    using executor_type = strand_ref;  // the client's strand (strand_ref.hpp)
    [[nodiscard]] executor_type get_executor() const noexcept {
      return {self->core_->strand, self->core_->posting_strand};
    }
    using cancellation_slot_type = boost::asio::cancellation_slot;
    [[nodiscard]] cancellation_slot_type get_cancellation_slot() const noexcept {
      return self->signal_.slot();
    }
    void operator()(transport_result r) const;
  };
  // `secret`: the credentials' value for this request (current_secret()).
  [[nodiscard]] http_request make_request(std::string method, std::string url,
                                          std::chrono::milliseconds timeout,
                                          std::string secret) const;
  [[nodiscard]] http_request make_request(std::string method, std::string url,
                                          std::chrono::milliseconds timeout) const {
    return make_request(std::move(method), std::move(url), timeout, current_secret());
  }
  // The credentials' value now (the provider's, if any).
  [[nodiscard]] std::string current_secret() const;
  [[nodiscard]] std::string absolute(const std::string& path_or_url) const;
  // `url` is on the API's own origin (base_url), where the credentials may be sent.
  [[nodiscard]] bool same_origin(const std::string& url) const;
  [[nodiscard]] bool failed_attempts_exhausted() const;
  [[nodiscard]] std::optional<std::chrono::milliseconds> retry_after_of(
      const http_response& r) const;
  [[nodiscard]] std::chrono::milliseconds elapsed() const;
  // An answer's meaning per the client's server profile.
  [[nodiscard]] answer classify_answer(http_response r) const;
  // Offline: parks the flight until the network is back (or, unless the policy pauses it, until
  // its deadline passes: then it ends as stopped), and returns true; `next` runs on resume.
  [[nodiscard]] bool park_if_offline(void (submit_operation::*next)());
  void unpark();
  // A write dropped in flight by client::on_foreground: sent again, same key, after a spread.
  void redrive();
  // The deadline's clock: the scheduler's, less the time spent offline since the flight began
  // when lifecycle.pause_deadline_while_offline (else the scheduler's own).
  [[nodiscard]] std::chrono::steady_clock::time_point deadline_now() const;
  // The lookup's clock: deadline_now() plus how late the client handled this flight's last
  // timed-out transfer, the time by which what starts now is likely to be handled late too,
  // plus what the lookups in flight will take to end (core::ends).
  [[nodiscard]] std::chrono::steady_clock::time_point lookup_now() const;
  // A transfer that timed out says how late its end was handled: now minus when it was due.
  // Any other end clears the lateness.
  void note_lateness(const transport_result& r);

  std::shared_ptr<client::core> core_;
  intent intent_;
  submit_options options_;
  std::chrono::steady_clock::time_point start_;
  std::optional<deadline> deadline_;
  boost::asio::cancellation_signal signal_;  // cancels the one wait or transfer outstanding
  // Most flights have one caller: held in place, not in an allocation of its own.
  boost::container::small_vector<waiter, 1> waiters_;
  std::uint64_t next_waiter_id_ = 0;

  std::uint32_t earlier_attempts_ = 0;         // attempts of earlier submissions (per the store)
  std::optional<wall_time> first_attempt_at_;  // of the intent's whole life (per the store)
  std::chrono::steady_clock::time_point attempt_started_;
  // When the transfer outstanding times out (the scheduler's clock), and how late the last one
  // that timed out was handled (see lookup_now).
  std::chrono::steady_clock::time_point transfer_due_;
  std::chrono::steady_clock::duration lateness_{0};
  std::uint32_t attempts_ = 0;  // writes sent
  std::uint32_t failed_ = 0;    // attempts that were not_sent or unknown
  // Every write so far, in this submission and (per the store) in earlier ones, provably never
  // left: only then is the outcome not_sent.
  bool all_not_sent_ = true;
  bool may_have_executed_ = false;
  bool cancelled_ = false;           // terminal: stop now
  bool stop_requested_ = false;      // partial: stop after what is in flight
  bool total_requested_ = false;     // total: stop while nothing may have been sent
  bool checking_stale_key_ = false;  // looking up an old intent before re-sending it
  bool credentials_moved_ = false;   // the credentials now belong to another principal
  bool finished_ = false;
  bool polling_ = false;
  std::error_code last_transport_error_;
  // What the last write (or the 202 being polled) said short of a verdict: the reason of an
  // outcome that ends without one, unless something more precise is known then.
  std::optional<errc> last_failure_;
  // The last HTTP answer to a write, for an unresolved outcome's status; allocated only when a
  // submission goes on after an answer (most in flight never have one).
  std::unique_ptr<answer> last_answer_;

  // The readings of a reading_scope (see sched_now): valid while the matching bit is set.
  enum reading_bits : std::uint8_t { readings_on = 1, steady_read = 2, wall_read = 4 };
  mutable std::uint8_t readings_ = 0;
  mutable std::chrono::steady_clock::time_point steady_reading_{};
  mutable wall_time wall_reading_{};

  bool parked_ = false;            // waiting for the network (in core::parked)
  bool stopped_at_start_ = false;  // a shutdown stopped it before it began (stop_at_start())
  std::chrono::steady_clock::duration offline_at_start_{0};  // core::offline_total at start_

  // What most flights never need (a flight answered at once has no retry, poll, lookup, park
  // or successor): made on first use, so that such a flight carries none of it (about 180
  // bytes of each of thousands in flight).
  struct rare_state {
    explicit rare_state(const backoff_policy& policy) : retries(policy), lookups(policy) {}
    backoff retries;
    backoff lookups;
    pending_callers successors;  // submissions that arrived while cancelling
    std::string poll_url;
    std::chrono::steady_clock::time_point next_resend;
    std::uint64_t park_generation = 0;
    // The lookup or poll request outstanding started then (its event's duration), and how
    // many lookup requests this flight sent.
    std::chrono::steady_clock::time_point read_started;
    std::uint32_t lookup_requests = 0;
    void (submit_operation::*parked_next)() = nullptr;
    // What the lookup last got, kept apart from the writes' answers (outcome_fields).
    int lookup_status = 0;
    std::error_code lookup_transport_error;
  };
  [[nodiscard]] rare_state& rare();
  std::unique_ptr<rare_state> rare_;
};

// Defined here: the flight's start (submit_operation.cpp) and its writes (submit_writes.cpp)
// both make events durable.
template <class Next, class Undo>
void submit_operation::write_durably(intent_event e, Next next, Undo undo) {
  if (core_->store->durable_on_write()) {
    // Nothing to wait for (a store in memory): on, still on the strand, without a queue hop.
    core_->store->write(std::move(e));
    return next();
  }
  // Nothing to wait for either: a start the journal covers (intent_store::write_if_covered).
  if (core_->store->write_if_covered(e)) return next();
  core_->store->async_write(
      std::move(e), core_->ex,
      boost::asio::bind_executor(
          core_->strand, [self = shared_from_this(), next = std::move(next),
                          undo = std::move(undo)](std::error_code ec) mutable {
            if (!ec) return next();
            undo();
            self->last_transport_error_ = ec;
            self->finish(outcome_fields{.kind = self->all_not_sent_ ? outcome_kind::not_sent
                                                                    : outcome_kind::unresolved,
                                        .error = std::string(to_string(errc::journal_write_failed)),
                                        .reason = errc::journal_write_failed},
                         /*record=*/false);
          }));
}

}  // namespace idem::detail
