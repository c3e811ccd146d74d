#pragma once
/// @file
/// The idem client: submits intents over an unreliable network and reports, for each, one of
/// four outcomes; never "failed" for something that might have happened.

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "idem/backoff.hpp"
#include "idem/deadline.hpp"
#include "idem/intent.hpp"
#include "idem/intent_store.hpp"
#include "idem/memory_intent_store.hpp"
#include "idem/observer.hpp"
#include "idem/outcome.hpp"
#include "idem/planned_intent.hpp"
#include "idem/retry_budget.hpp"
#include "idem/scheduler.hpp"
#include "idem/transport.hpp"

namespace idem {

/// `Authorization: Bearer <token>`. The token is the principal: keys belong to it.
struct bearer_token {
  std::string token;
};

/// Client settings; a value with defaults that follow the contract.
struct client_options {
  std::string base_url{};  ///< e.g. "https://api.shop.example" (no trailing slash needed)
  bearer_token credentials{};
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
  /// attempt's start is durable before its first byte leaves. A store that cannot write (full
  /// disk, read-only file) ends the submission before anything is sent (`not_sent`, error
  /// `journal-write-failed`). An intent the store knows is checked against it: other
  /// credentials are refused (`foreign-credentials`), another request under its key is refused
  /// (`idempotency-key-mismatch`), a final one completes with its recorded outcome without
  /// sending, a planned one gets its path written down first.
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
  template <
      class CompletionToken = boost::asio::default_completion_token_t<boost::asio::any_io_executor>>
  auto async_submit(const intent& i, CompletionToken&& token = CompletionToken{}) {
    return boost::asio::async_initiate<CompletionToken, signature>(
        [this](auto handler, const intent& what) {
          submit_impl(what, boost::asio::any_completion_handler<signature>(std::move(handler)));
        },
        token, i);
  }

  /// Writes `i` to the store without sending it (a plan: resume or submit it later). Completes
  /// with `void(std::error_code)` once it is durable. A no-op for an intent already known.
  template <
      class CompletionToken = boost::asio::default_completion_token_t<boost::asio::any_io_executor>>
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
  template <
      class CompletionToken = boost::asio::default_completion_token_t<boost::asio::any_io_executor>>
  auto async_plan(const planned_intent& p, CompletionToken&& token = CompletionToken{}) {
    return boost::asio::async_initiate<CompletionToken, void(std::error_code)>(
        [this](auto handler, const planned_intent& what) {
          plan_impl(what.draft(), what.depends_on(),
                    boost::asio::any_completion_handler<void(std::error_code)>(std::move(handler)));
        },
        token, p);
  }

  [[nodiscard]] client_counters counters() const;
  [[nodiscard]] boost::asio::any_io_executor get_executor() const;
  [[nodiscard]] const std::shared_ptr<intent_store>& store() const;
  /// SHA-256 fingerprint of this client's credentials, as the store records it (never the
  /// secret): compare with intent_record::principal before resuming someone else's intents.
  [[nodiscard]] const std::string& principal() const;

  struct core;  // shared with the operations in flight (src/)

 private:
  void submit_impl(const intent& i, boost::asio::any_completion_handler<signature> handler);
  void plan_impl(const intent& i, std::optional<std::string> depends_on,
                 boost::asio::any_completion_handler<void(std::error_code)> handler);
  std::shared_ptr<core> core_;
};

}  // namespace idem
