#pragma once
// Internal: what a client shares with its operations in flight. They hold it by shared_ptr, so
// a client destroyed mid-flight leaves them a valid core to finish against.

#include <atomic>
#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/cancellation_signal.hpp>
#include <boost/asio/strand.hpp>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "flight/end_backlog.hpp"
#include "flight/single_flight.hpp"
#include "idem/client.hpp"
#include "policy/backoff.hpp"
#include "policy/retry_budget.hpp"

namespace idem {
namespace detail {

// A flush (or shutdown) waiting for the flights to end (client_flush.cpp). On the strand.
struct pending_flush {
  // (Boost 1.81's any_completion_handler cannot be move-assigned: it recurses. Constructed.)
  explicit pending_flush(boost::asio::any_completion_handler<void(flush_report)> h)
      : handler(std::move(h)) {}
  boost::asio::any_completion_handler<void(flush_report)> handler;
  std::uint64_t ended_at_start = 0;  // core::flights_ended when it began
  std::size_t stopped = 0;           // flights it stopped
  // A shutdown's: submissions it stopped at their start that ended before it began (they were
  // queued on the strand ahead of it). Not flights it saw, so not in `stopped`'s arithmetic.
  std::size_t stopped_before = 0;
  boost::asio::cancellation_signal due;  // cancels its wait for `within`
  bool done = false;
};

}  // namespace detail

struct client::core {
  core(boost::asio::any_io_executor executor, client_options options, std::shared_ptr<transport> t,
       std::shared_ptr<scheduler> s);

  boost::asio::any_io_executor ex;
  // Every operation's state is touched only here.
  boost::asio::strand<boost::asio::any_io_executor> strand;
  // The same strand, converted as post() converts it, once (posting_strand.hpp): post_on() it
  // is a post, without post()'s conversions on every submission.
  boost::asio::strand<boost::asio::any_io_executor> posting_strand;
  client_options opts;
  std::shared_ptr<transport> net;
  std::shared_ptr<scheduler> sched;
  std::shared_ptr<intent_store> store;
  retry_budget budget;
  std::mt19937_64 rng;
  std::string credentials_fingerprint;  // SHA-256 of the credentials, never the token itself
  std::string base_url;                 // without a trailing '/'
  detail::single_flight flights;
  // How far behind the strand is at ending timed-out transfers (submit_lookup.cpp).
  detail::end_backlog ends;
  // Shut down or destroyed: every flight not yet started stops at once (not_sent). Set by the
  // caller's thread at the call, not on the strand later: a submission made just before, still
  // queued on the strand, must not go out (it would end unresolved instead of not_sent).
  std::atomic<bool> shutting_down{false};
  // Submissions stopped at their start by a shutdown whose flush had not begun on the strand
  // yet, and ended since: that flush reports them as stopped (client_flush.cpp).
  std::size_t stopped_before_shutdown_flush = 0;
  bool shutdown_flush_began = false;

  // The app's lifecycle signals (client_lifecycle.cpp, client_flush.cpp); on the strand, but
  // `reported_network`, which client::network() reads from any thread.
  std::atomic<network_status> reported_network{network_status::online};
  bool offline = false;
  scheduler::clock::time_point offline_since{};
  scheduler::clock::duration offline_before{0};  // the offline periods that ended
  // Flights waiting for the network (submit_parking.cpp).
  std::vector<std::shared_ptr<detail::submit_operation>> parked;
  std::vector<std::shared_ptr<detail::pending_flush>> flushes;
  std::uint64_t flights_ended = 0;

  // Time spent offline since the client was made, up to `now`.
  [[nodiscard]] scheduler::clock::duration offline_total(scheduler::clock::time_point now) const;
  // A random moment within lifecycle.resume_spread (core::rng).
  [[nodiscard]] std::chrono::milliseconds resume_delay();
  // A flight finished (it left `flights`): complete_flushes(). `stopped_at_start`: a shutdown
  // stopped it before it began.
  void flight_ended(bool stopped_at_start);
  // With no flight left, each pending flush completes once the store is durable.
  void complete_flushes();

  struct atomic_counters {
    std::atomic<std::uint64_t> attempts{0}, retries{0}, lookups{0}, succeeded{0}, rejected{0},
        not_sent{0}, unresolved{0}, recovered_by_lookup{0};
  } counters;
};

}  // namespace idem
