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
#include "idem/observer.hpp"
#include "idem/outcome.hpp"
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
  std::shared_ptr<idem::intent_store> store{};  ///< default: a memory_intent_store
  std::shared_ptr<idem::observer> observer{};   ///< default: none
  std::optional<std::uint64_t> rng_seed{};      ///< jitter seed, for repeatable tests
};

/// Submits intents. Thread-safety: async_submit and counters() may be called from any thread;
/// the retry loops run on a strand of the given executor. The transport is used only from that
/// strand (so curl_transport needs a single-threaded io_context). Destroying the client cancels
/// every submission in flight: each completes (unresolved or not_sent), never dropped.
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
  /// the client's). If `i` (or another intent with its key) is already in flight, joins that
  /// flight instead of sending again. Per-operation cancellation (any type) stops retrying: the
  /// outcome is then `unresolved`, or `not_sent` if nothing was ever sent; a joiner that cancels
  /// while others wait just leaves (unresolved).
  template <
      class CompletionToken = boost::asio::default_completion_token_t<boost::asio::any_io_executor>>
  auto async_submit(const intent& i, CompletionToken&& token = CompletionToken{}) {
    return boost::asio::async_initiate<CompletionToken, signature>(
        [this](auto handler, const intent& what) {
          submit_impl(what, boost::asio::any_completion_handler<signature>(std::move(handler)));
        },
        token, i);
  }

  [[nodiscard]] client_counters counters() const;
  [[nodiscard]] boost::asio::any_io_executor get_executor() const;
  [[nodiscard]] const std::shared_ptr<intent_store>& store() const;

  struct core;  // shared with the operations in flight (src/)

 private:
  void submit_impl(const intent& i, boost::asio::any_completion_handler<signature> handler);
  std::shared_ptr<core> core_;
};

}  // namespace idem
