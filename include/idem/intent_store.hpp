#pragma once
/// @file
/// Where every state change of an intent is written down, so that a process that is killed,
/// cancelled or restarted can finish each intent that is not final with the key it was minted
/// with, and never report as not sent what may have reached the server.
///
/// The client reports state changes as events (intent_event). A store applies each event to its
/// record of the intent at once (so reads see it) and makes it durable asynchronously; the
/// client waits for durability only where it matters: an intent is durable before its first
/// attempt, an attempt's start is durable before its first byte leaves (or the store reads the
/// intent as maybe sent after any crash: see the exception below).

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <system_error>
#include <variant>
#include <vector>

#include "idem/classify.hpp"
#include "idem/intent.hpp"
#include "idem/outcome.hpp"

namespace idem {

using wall_time = std::chrono::system_clock::time_point;

/// Where an intent stands.
enum class intent_state {
  open,       ///< not final: never submitted, not sent or unresolved (resume it)
  succeeded,  ///< final
  rejected,   ///< final
  abandoned,  ///< final: a planned intent whose prerequisite failed; it was never sent
};

[[nodiscard]] std::string_view to_string(intent_state s) noexcept;

/// The events a client reports. Each carries its wall-clock time (taken from the client's
/// scheduler, so tests run in virtual time).
namespace events {

/// A new intent, written before anything is sent. `principal` is a SHA-256 fingerprint of the
/// credentials it will be sent with (never the secret). A planned intent (`path_bound` false)
/// has a path template and waits for `depends_on` (another intent's key) to succeed.
struct created {
  intent what;
  std::string principal{};
  wall_time at{};
  std::optional<std::string> depends_on{};
  bool path_bound = true;
};

/// A planned intent got its concrete path (and lookup), before its first attempt.
struct path_bound {
  idempotency_key key;
  operation op;
  business_lookup lookup;
  wall_time at{};
};

/// A write is about to leave (durable before its first byte, or covered: see intent_store).
/// `number` counts from 1 over the intent's whole life, across submissions and processes.
struct attempt_started {
  idempotency_key key;
  std::uint32_t number = 0;
  wall_time at{};
};

/// What one write produced.
struct attempt_finished {
  idempotency_key key;
  std::uint32_t number = 0;
  wall_time at{};
  attempt_class cls = attempt_class::unknown;
  int status = 0;                 ///< HTTP status, 0 without a response
  std::string request_id{};       ///< the server's request id (`Request-Id`/`X-Request-Id`)
  std::string problem_type{};     ///< problem+json type of the answer, if any
  std::string transport_error{};  ///< what failed, without a response
  std::chrono::milliseconds took{0};
};

/// The retry loop waits (backoff, Retry-After, retry budget) before the next attempt.
struct waited {
  idempotency_key key;
  wall_time at{};
  std::chrono::milliseconds delay{0};
};

/// A lookup by business ID answered. `verdict`: "found", "not_found", "conflicting", "retry".
struct lookup_finished {
  idempotency_key key;
  wall_time at{};
  std::string verdict{};
  int status = 0;
};

/// A submission ended with this outcome (succeeded and rejected make the intent final).
struct outcome_reported {
  idempotency_key key;
  wall_time at{};
  outcome result;
};

/// A planned intent will never be sent (its prerequisite did not succeed).
struct abandoned {
  idempotency_key key;
  wall_time at{};
  std::string reason{};
};

}  // namespace events

using intent_event = std::variant<events::created, events::path_bound, events::attempt_started,
                                  events::attempt_finished, events::waited, events::lookup_finished,
                                  events::outcome_reported, events::abandoned>;

/// The key an event is about.
[[nodiscard]] const idempotency_key& key_of(const intent_event& e) noexcept;

/// One line of an intent's audit timeline, in the order it happened.
struct timeline_entry {
  enum class kind {
    created,
    path_bound,
    attempt_started,
    attempt_finished,
    waited,
    lookup,
    outcome,
    abandoned
  };
  kind what = kind::created;
  wall_time at{};
  std::uint32_t attempt = 0;              ///< attempt_started / attempt_finished
  std::optional<attempt_class> cls{};     ///< attempt_finished
  int status = 0;                         ///< attempt_finished, lookup, outcome
  std::string request_id{};               ///< attempt_finished
  std::chrono::milliseconds duration{0};  ///< attempt_finished: how long; waited: the delay
  std::string detail{};                   ///< outcome kind, lookup verdict, error, path...
};

[[nodiscard]] std::string_view to_string(timeline_entry::kind k) noexcept;

/// What a store knows about one intent.
struct intent_record {
  /// The intent as journaled: the exact body bytes; for a planned intent not yet bound, the
  /// path is the template it was planned with.
  intent what;
  /// SHA-256 fingerprint of the credentials it is sent as (never the secret). Keys belong to it.
  std::string principal{};
  wall_time created_at{};
  std::optional<wall_time> first_attempt_at{};
  std::optional<wall_time> finished_at{};   ///< when it became final
  std::optional<std::string> depends_on{};  ///< key of the intent whose result fills the path
  bool path_bound = true;
  std::uint32_t attempts = 0;           ///< attempts started, over all submissions and processes
  std::uint32_t attempts_finished = 0;  ///< attempts whose result was recorded
  std::optional<attempt_class> last_class{};
  /// Some recorded attempt may have reached the server (any class but not_sent).
  bool reached_server = false;
  intent_state state = intent_state::open;
  std::optional<outcome_kind> last_outcome{};  ///< of the last submission that ended
  int final_status = 0;                        ///< status of the answer that decided it
  std::string final_body{};                    ///< body of that answer (the created resource)
  std::string error{};                         ///< client bug named by the last outcome
  /// A final intent of which the store keeps only what the key-retention rule needs (the
  /// memory store past its retention window): key, principal, state and times are exact;
  /// `what` holds the key alone, `final_body` is empty, and `request_digest` stands for the
  /// request (detail::request_digest).
  bool details_forgotten = false;
  std::uint64_t request_digest = 0;

  /// The intent may have reached the server: an attempt that did, or one whose start is
  /// recorded and whose end is not (the process died with it on the wire, or it was cancelled
  /// mid-flight). Such an intent is never again reported as not sent.
  [[nodiscard]] bool maybe_sent() const noexcept {
    return reached_server || attempts > attempts_finished;
  }
  [[nodiscard]] bool is_open() const noexcept { return state == intent_state::open; }
};

/// The record a `created` event starts.
[[nodiscard]] intent_record make_record(const events::created& c);

/// Applies one event to a record (the state machine every store shares). `r` must be the
/// record of the event's key; a `created` event is handled by the store (it makes the record).
void apply(intent_record& r, const intent_event& e);

/// The timeline line for an event.
[[nodiscard]] timeline_entry timeline_of(const intent_event& e);

/// The interface every store implements (memory_intent_store, sqlite_journal).
///
/// Writes: `async_write` applies the event to the store's record at once, so `find` and
/// `open_intents` see it immediately, then completes `handler` with an empty error_code once the
/// event is durable (as durable as the store promises), or with the error that prevented it
/// (disk full, read-only file...). The handler is never invoked inline: it is posted through
/// `ex` (`boost::asio::post(ex, boost::asio::append(std::move(handler), ec))`), so it runs on
/// its own associated executor if it has one, else on `ex`. Events for a key the store does not
/// know are ignored (their handler still completes without error), except `created`; a
/// `created` for a known key changes nothing.
///
/// Order: the events of one intent become durable in the order they were written, and an event
/// is durable only together with every earlier event of the same intent (whether it was written
/// with `write` or `async_write`). The client relies on it: it waits only for attempts'
/// starts, the first of which makes the intent's `created` (and a plan's `path_bound`) durable
/// too.
///
/// One exception: a store may complete an `attempt_started` before it is durable if, whatever
/// ends the process from then on, it reads the intent back as maybe sent, first sent no later
/// than the lost start. The SQLite journal does so for an intent already in its file with no
/// submission ended, and reads such intents as maybe sent after an unclean close
/// (docs/JOURNAL.md, "What waits for a commit").
///
/// Thread-safety: every member may be called from any thread; several clients may share one
/// store.
class intent_store {
 public:
  using write_handler = boost::asio::any_completion_handler<void(std::error_code)>;
  virtual ~intent_store() = default;

  /// Records `e`; completes `handler` through `ex` when it is durable. See the class comment.
  virtual void async_write(intent_event e, boost::asio::any_io_executor ex,
                           write_handler handler) = 0;
  /// Records every event of `events`, in order, and completes `handler` through `ex` once, when
  /// all are durable, with the first error if any was not (as async_write would report it).
  /// One wait for many events: a store that commits in groups (the journal) records them under
  /// one lock and completes one write where async_write would complete one per event. The
  /// default calls async_write for each.
  virtual void async_write_all(std::vector<intent_event> events, boost::asio::any_io_executor ex,
                               write_handler handler);
  /// Records `e` without waiting for durability (its errors are not reported; a later event
  /// of the same intent makes the record durable as a whole).
  virtual void write(intent_event e) = 0;
  /// True if `write` makes an event as durable as this store ever makes it and cannot fail
  /// (a store in memory): the client then writes with `write` and goes on at once, where it
  /// would otherwise wait for `async_write`'s handler (one queue hop per attempt). The default,
  /// false, is right for any store that writes to a disk or a network.
  [[nodiscard]] virtual bool durable_on_write() const noexcept { return false; }
  /// Records `e` and returns true if the store needs no wait for it: an `attempt_started` it
  /// covers by the exception above (read back as maybe sent whatever ends the process).
  /// Otherwise records nothing and returns false, and the client calls async_write. Lets the
  /// client send at once instead of waiting for a handler that would complete at once anyway
  /// (one queue hop and one strand hop fewer per attempt). The default returns false.
  [[nodiscard]] virtual bool write_if_covered(const intent_event& e);
  /// Completes `handler` through `ex` (as async_write does) once every event written so far,
  /// with `write` or `async_write`, is durable, or with the error that prevented it (e.g.
  /// before the app is suspended: client::async_flush). The default completes at once without
  /// error: right for a store that is durable_on_write(); any other must override it.
  virtual void async_flush(boost::asio::any_io_executor ex, write_handler handler);
  /// The record of `key`, if the store has it (final intents past retention are forgotten).
  [[nodiscard]] virtual std::optional<intent_record> find(const idempotency_key& key) const = 0;
  /// Every open intent (never submitted, not sent, unresolved), oldest first.
  [[nodiscard]] virtual std::vector<intent_record> open_intents() const = 0;
  /// The audit timeline of `key`, oldest first (empty if unknown).
  [[nodiscard]] virtual std::vector<timeline_entry> timeline(const idempotency_key& key) const = 0;
};

/// True for the outcome kinds after which an intent is over (nothing to resume).
[[nodiscard]] constexpr bool is_final(outcome_kind k) noexcept {
  return k == outcome_kind::succeeded || k == outcome_kind::rejected;
}

}  // namespace idem
