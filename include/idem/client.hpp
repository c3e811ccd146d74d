#pragma once
/// @file
/// The idem client: submits intents over an unreliable network and reports, for each, one of
/// four outcomes; never "failed" for something that might have happened.

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/deferred.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>

#include "idem/backoff.hpp"
#include "idem/curl_transport.hpp"
#include "idem/deadline.hpp"
#include "idem/intent.hpp"
#include "idem/intent_store.hpp"
#include "idem/lifecycle.hpp"
#include "idem/memory_intent_store.hpp"
#include "idem/observer.hpp"
#include "idem/outcome.hpp"
#include "idem/planned_intent.hpp"
#include "idem/resume.hpp"
#include "idem/retry_budget.hpp"
#include "idem/scheduler.hpp"
#include "idem/server_profile.hpp"
#include "idem/submit_options.hpp"
#include "idem/transport.hpp"

namespace idem {

/// The completion token used when none is given: the executor's default if it has one (Boost
/// 1.81's any_io_executor has none), else `boost::asio::deferred`, so `c.async_submit(i)` returns
/// an operation to `co_await` or launch with a token later.
template <class Executor>
using default_token_t =
    std::conditional_t<std::is_void_v<boost::asio::default_completion_token_t<Executor>>,
                       boost::asio::deferred_t, boost::asio::default_completion_token_t<Executor>>;

/// `Authorization: Bearer <token>`.
struct bearer_token {
  std::string token;
};

/// How the client proves who it is, and who owns its keys. A key belongs to a principal: an
/// intent written down under one principal is never sent under another (`foreign-credentials`).
struct credentials {
  /// The header that carries the secret, and its whole value (e.g. "Bearer abc").
  std::string header = "Authorization";
  std::string value{};
  /// Called before every request for the current value (e.g. an OAuth token that rotates); must
  /// not block or throw; an empty result sends no credentials header. Overrides `value`.
  std::function<std::string()> provider{};
  /// A stable id of the principal (user or account id) that keys are bound to. Default: a
  /// SHA-256 of `header` and `value` (or of the provider's first value), which changes when
  /// the token does: give an id when tokens rotate, or a resume after a refresh is refused.
  std::string principal_id{};

  credentials() = default;
  /// `Authorization: Bearer <token>`.
  credentials(bearer_token b)  // NOLINT(google-explicit-constructor): the common case
      : value("Bearer " + b.token) {}
  /// Any header, e.g. `X-Api-Key: <key>`.
  [[nodiscard]] static credentials in_header(std::string name, std::string value);
  /// A value from `provider` before every request, sent in `header` as is.
  [[nodiscard]] static credentials from_provider(std::function<std::string()> provider,
                                                 std::string principal_id,
                                                 std::string header = "Authorization");
};

/// Client settings; a value with defaults that follow the contract.
struct client_options {
  std::string base_url{};  ///< e.g. "https://api.shop.example" (no trailing slash needed)
  idem::credentials credentials{};
  /// How the backend says in progress, mismatch, conflict, replay (server_profile.hpp).
  server_profile profile = server_profile::ietf();
  /// The request header that carries the key.
  std::string key_header = "Idempotency-Key";
  /// Sent on every request (e.g. an API version). Never the key or credentials headers.
  header_list headers{};
  /// Called on the client's strand for every request just before it is sent, after every
  /// header is set (e.g. to add a `traceparent` per attempt). Must not throw, and must not
  /// change the body or the key: a changed request under the same key is a different request.
  std::function<void(http_request&)> decorate{};
  /// Settings of the default transport (CA file, client certificate, proxy, connection pool),
  /// which the client builds on its strand; ignored when the constructor is given a transport.
  curl_transport_options transport_options{};
  /// Named predicates that lookups may refer to (business_lookup::predicate).
  std::map<std::string, lookup_predicate, std::less<>> lookup_predicates{};
  deadline_policy deadline{};  ///< one budget per intent, lookup included
  backoff_policy backoff = full_jitter{};
  retry_budget_policy retry_budget{};
  /// Cap on FAILED attempts (not sent / unknown) per submission; waiting on 409 in-progress or
  /// 429 never counts. Unset: the deadline alone bounds the intent.
  std::optional<std::uint32_t> max_failed_attempts{};
  std::chrono::milliseconds poll_interval{1'000};    ///< between polls of a 202's Location
  std::chrono::milliseconds resend_interval{3'000};  ///< re-send the POST while polling a 202
  bool prefer_async = false;  ///< send `Prefer: respond-async` (the server may answer 202)
  /// How long the backend remembers a key (mock server `--key-ttl`, Stripe: 24 h). A request
  /// that arrives after that executes again, so an intent first sent longer ago than this minus
  /// `key_retention_margin` is never re-sent blindly: it is looked up first, re-sent only when
  /// the lookup proves it never executed, and otherwise ends unresolved.
  std::chrono::milliseconds server_key_retention = std::chrono::hours{24};
  std::chrono::milliseconds key_retention_margin = std::chrono::hours{1};
  /// Where intents are written down (default: a memory_intent_store; sqlite_journal for keys
  /// that survive the process).
  std::shared_ptr<idem::intent_store> store{};
  std::shared_ptr<idem::observer> observer{};  ///< default: none
  std::optional<std::uint64_t> rng_seed{};     ///< jitter seed, for repeatable tests
  /// Offline periods and returns to the foreground (idem/lifecycle.hpp, docs/MOBILE.md).
  lifecycle_policy lifecycle{};
};

/// Submits intents. Thread-safety: every member may be called from any thread; the retry loops
/// and the default transport run on a strand of the given executor, so the io_context may be run
/// by several threads. Destroying the client cancels every submission in flight: each completes
/// (unresolved or not_sent), never dropped.
class client {
 public:
  using signature = void(outcome);

  /// `transport` defaults to a curl_transport, `sched` to an asio_scheduler, both on `ex`.
  client(boost::asio::any_io_executor ex, client_options options,
         std::shared_ptr<transport> transport = nullptr,
         std::shared_ptr<scheduler> sched = nullptr);
  ~client();
  client(const client&) = delete;
  client& operator=(const client&) = delete;

  /// Drives `i` to an outcome within its deadline, sending its key unchanged on every attempt.
  /// Completes with `void(outcome)`: never inline, on the token's associated executor (default:
  /// the client's).
  ///
  /// Before the first attempt the intent is written to the store (durable, for a journal); each
  /// attempt's start is durable before its first byte leaves (or, for an intent the journal
  /// has in its file already, read back as maybe sent after a crash: intent_store.hpp). A store
  /// that cannot make a needed write durable (full disk, read-only file) ends the submission
  /// before anything is sent (`not_sent`, error `journal-write-failed`). An intent the store
  /// knows is checked against it: other credentials are refused (`foreign-credentials`),
  /// another request under its key is refused (`idempotency-key-mismatch`), a final one
  /// completes with its recorded outcome without sending, a planned one gets its path written
  /// down first.
  ///
  /// If the intent is already in flight, joins that flight instead of sending again; if that
  /// flight is being cancelled, the new submission starts once it has unwound and recorded what
  /// it did. Per-operation cancellation, by type (Asio's meaning):
  /// - terminal: stops at once, aborting a transfer in flight: `unresolved` if anything may have
  ///   left, else `not_sent`;
  /// - partial: lets the attempt in flight finish (its answer counts), then stops retrying;
  /// - total: stops only while nothing of the intent may have been sent (`not_sent`), and is
  ///   ignored once something may have reached the server.
  /// A joiner that cancels while others wait just leaves (unresolved).
  template <class CompletionToken = default_token_t<boost::asio::any_io_executor>>
  requires(!std::is_same_v<std::decay_t<CompletionToken>, submit_options>) auto async_submit(
      const intent& i, CompletionToken&& token = CompletionToken{}) {
    return async_submit(i, submit_options{}, std::forward<CompletionToken>(token));
  }
  /// As above, with this submission's own deadline and extra headers.
  template <class CompletionToken = default_token_t<boost::asio::any_io_executor>>
  auto async_submit(const intent& i, submit_options options,
                    CompletionToken&& token = CompletionToken{}) {
    return boost::asio::async_initiate<CompletionToken, signature>(
        [this](auto handler, const intent& what, submit_options o) {
          submit_impl(what, std::move(o),
                      boost::asio::any_completion_handler<signature>(std::move(handler)));
        },
        token, i, std::move(options));
  }

  /// Writes `i` to the store without sending it (a plan: resume or submit it later). Completes
  /// with `void(std::error_code)` once it is durable. A no-op for an intent already known.
  template <class CompletionToken = default_token_t<boost::asio::any_io_executor>>
  auto async_plan(const intent& i, CompletionToken&& token = CompletionToken{}) {
    return boost::asio::async_initiate<CompletionToken, void(std::error_code)>(
        [this](auto handler, const intent& what) {
          plan_impl(what, std::nullopt,
                    boost::asio::any_completion_handler<void(std::error_code)>(std::move(handler)));
        },
        token, i);
  }
  /// Writes a planned intent (its path still to be filled in) to the store. Submit
  /// `p.bind(id)` once its prerequisite succeeded: the path is written down before it is sent.
  template <class CompletionToken = default_token_t<boost::asio::any_io_executor>>
  auto async_plan(const planned_intent& p, CompletionToken&& token = CompletionToken{}) {
    return boost::asio::async_initiate<CompletionToken, void(std::error_code)>(
        [this](auto handler, const planned_intent& what) {
          plan_impl(what.draft(), what.depends_on(),
                    boost::asio::any_completion_handler<void(std::error_code)>(std::move(handler)));
        },
        token, p);
  }
  /// Writes every intent of `intents` and every plan of `plans` to the store, as async_plan
  /// does, and completes once with `void(std::error_code)` when all are durable (the first error
  /// if one was not). One wait for the lot: a journal records them under one lock and commits
  /// them together, where async_plan makes the caller wait (and the journal complete) once per
  /// intent. The spans are read when the operation starts: at once for a callback or a future,
  /// when awaited for a deferred token. An error does not mean none was written: a journal
  /// keeps what a failed commit held (a full disk) for its next commit, and the intents are
  /// open from the start (`find`, `open_intents`), so a resume drives them. Retry with the same
  /// intents (their keys), never with new ones for the same purchase.
  template <class CompletionToken = default_token_t<boost::asio::any_io_executor>>
  auto async_plan_all(std::span<const intent> intents, std::span<const planned_intent> plans,
                      CompletionToken&& token = CompletionToken{}) {
    return boost::asio::async_initiate<CompletionToken, void(std::error_code)>(
        [this](auto handler, std::span<const intent> i, std::span<const planned_intent> p) {
          plan_all_impl(
              i, p, boost::asio::any_completion_handler<void(std::error_code)>(std::move(handler)));
        },
        token, intents, plans);
  }

  /// Drives every open intent of the store to an end (on start-up, to finish what a killed,
  /// interrupted or shut-down process left), each with its own key and exact bytes under a
  /// fresh deadline, at most `options.concurrency` at a time; completes with
  /// `void(resume_summary)` on the token's associated executor. Intents of another principal
  /// are refused or skipped (resume_options::skip_foreign). A planned intent (a payment of an
  /// order) is bound to what its prerequisite created once that succeeded (now, or when it
  /// succeeds during this resume: dependants go first); one whose prerequisite can never
  /// succeed is written down as abandoned, never sent. Cancellation (any type) starts nothing
  /// more and passes its type on to every submission in flight; the summary then has
  /// errc::cancelled. Throws std::invalid_argument for options that cannot work.
  /// docs/JOURNAL.md ("Resume").
  template <class CompletionToken = default_token_t<boost::asio::any_io_executor>>
  auto async_resume(resume_options options, CompletionToken&& token = CompletionToken{}) {
    return boost::asio::async_initiate<CompletionToken, void(resume_summary)>(
        [this](auto handler, resume_options o) {
          resume_impl(std::move(o), boost::asio::any_completion_handler<void(resume_summary)>(
                                        std::move(handler)));
        },
        token, std::move(options));
  }

  /// The network as the platform reports it; call it from any thread whenever it changes.
  /// While offline no attempt, poll or lookup starts: a submission whose next step needs the
  /// network waits for it (its deadline runs on unless `lifecycle.pause_deadline_while_offline`;
  /// one that runs out ends `not_sent` or `unresolved`, open in the store). New submissions are
  /// written to the store and wait too. Online again: every waiting submission goes on, under
  /// its key, at a random moment within `lifecycle.resume_spread`. Transfers already in flight
  /// are left alone (their answer may still arrive).
  void set_network(network_status s);
  /// What set_network last said (online until it is called).
  [[nodiscard]] network_status network() const noexcept;

  /// The app is back from the background, where its sockets may have died without a word:
  /// every pooled connection is dropped (transport::reset_connections) and every write in
  /// flight is sent again at once, under the same key (the server replays it if the first one
  /// arrived), within `lifecycle.resume_spread`. Polls and lookups in flight are asked again as
  /// after any failed read. Call it from any thread.
  void on_foreground();

  /// Before the app is suspended: lets what is in flight finish for up to `within`, then stops
  /// the rest (each completes `not_sent` or `unresolved` and stays open in the store, with its
  /// key, to be resumed), and completes with `void(flush_report)` once the store has made every
  /// event durable. Submissions waiting for the network are stopped at once. The client stays
  /// usable; submissions made during the flush are part of it.
  template <class CompletionToken = default_token_t<boost::asio::any_io_executor>>
  auto async_flush(std::chrono::milliseconds within, CompletionToken&& token = CompletionToken{}) {
    return boost::asio::async_initiate<CompletionToken, void(flush_report)>(
        [this](auto handler, std::chrono::milliseconds w) {
          flush_impl(w, /*shutdown=*/false,
                     boost::asio::any_completion_handler<void(flush_report)>(std::move(handler)));
        },
        token, within);
  }
  /// A clean, fast shutdown: stops every submission at once (each completes `not_sent` or
  /// `unresolved`), refuses new ones (`not_sent`), and completes with `void(flush_report)` once
  /// the store has made every event durable. Destroy the client afterwards. A submission made
  /// before this call that the client has not started yet (it starts submissions on its
  /// executor) never goes out: `not_sent`.
  template <class CompletionToken = default_token_t<boost::asio::any_io_executor>>
  auto async_shutdown(CompletionToken&& token = CompletionToken{}) {
    return boost::asio::async_initiate<CompletionToken, void(flush_report)>(
        [this](auto handler) {
          flush_impl(std::chrono::milliseconds{0}, /*shutdown=*/true,
                     boost::asio::any_completion_handler<void(flush_report)>(std::move(handler)));
        },
        token);
  }

  [[nodiscard]] client_counters counters() const;
  [[nodiscard]] boost::asio::any_io_executor get_executor() const;
  [[nodiscard]] const std::shared_ptr<intent_store>& store() const;
  /// The principal this client's keys belong to, as the store records it: credentials'
  /// `principal_id` if given, else a SHA-256 fingerprint of the credentials (never the secret);
  /// with a `key_header` other than Idempotency-Key, followed by ";key-header=<name>": a key
  /// written down under one header is never sent in another (the server would not see it).
  /// Compare with intent_record::principal before resuming someone else's intents.
  [[nodiscard]] const std::string& principal() const;

  struct core;  // shared with the operations in flight (src/)

 private:
  void submit_impl(const intent& i, submit_options options,
                   boost::asio::any_completion_handler<signature> handler);
  void resume_impl(resume_options options,
                   boost::asio::any_completion_handler<void(resume_summary)> handler);
  void plan_impl(const intent& i, std::optional<std::string> depends_on,
                 boost::asio::any_completion_handler<void(std::error_code)> handler);
  void plan_all_impl(std::span<const intent> intents, std::span<const planned_intent> plans,
                     boost::asio::any_completion_handler<void(std::error_code)> handler);
  void flush_impl(std::chrono::milliseconds within, bool shutdown,
                  boost::asio::any_completion_handler<void(flush_report)> handler);
  std::shared_ptr<core> core_;
};

}  // namespace idem
