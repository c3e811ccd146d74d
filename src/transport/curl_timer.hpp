#pragma once
// libcurl's one timeout (CURLMOPT_TIMERFUNCTION) on an Asio executor, with as few timer
// operations as possible (private to the idem library).
//
// curl calls its timer callback after nearly every socket_action, and always after a
// CURL_SOCKET_TIMEOUT one, mostly to say "now" or to move the expiry later. Re-arming a
// steady_timer each time costs a timerfd_settime and an aborted wait per call: 1.7 per request
// and a third of the transport's CPU in the profile of issue 9. So:
// - a 0 ms timeout ("now") is one posted action, no timer; calls before it runs share it;
// - an expiry that moves later leaves the pending wait alone: it fires early, finds the later
//   expiry and waits again (one extra wake-up per expiry instead of one re-arm per callback);
// - only an expiry earlier than the pending wait's re-arms it;
// - "no timeout" cancels the pending wait, so that an idle transport never keeps the io_context
//   busy.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>

namespace idem::detail {

/// Thread-safety: none; used on the owner's executor. The owner keeps this object alive until
/// every wait and post on its behalf has run: they hold the `keep_alive` given to set().
class curl_timer {
 public:
  using clock = std::chrono::steady_clock;

  /// `due` runs on `ex` when curl's timeout has come, never from inside set().
  curl_timer(boost::asio::any_io_executor ex, std::function<void()> due);
  curl_timer(const curl_timer&) = delete;
  curl_timer& operator=(const curl_timer&) = delete;

  /// For CURLMOPT_TIMERFUNCTION: curl wants socket_action(CURL_SOCKET_TIMEOUT) in
  /// `timeout_ms` (negative: not at all). May throw std::bad_alloc.
  void set(long timeout_ms, const std::shared_ptr<void>& keep_alive);
  /// Forgets the timeout for good: `due` is not called any more.
  void stop() noexcept;

  /// Timer waits started so far (each one a timerfd_settime in Asio's epoll reactor).
  [[nodiscard]] std::uint64_t waits_started() const noexcept { return waits_started_; }
  /// Actions posted for a 0 ms timeout so far.
  [[nodiscard]] std::uint64_t posts() const noexcept { return posts_; }

 private:
  void arm(clock::time_point at, const std::shared_ptr<void>& keep_alive);
  void on_wait(std::uint64_t generation, const std::shared_ptr<void>& keep_alive);
  void on_post();

  boost::asio::any_io_executor ex_;
  boost::asio::steady_timer timer_;
  std::function<void()> due_;
  // Whether curl's expiry has come (an expiry of at_once has, without a clock read).
  [[nodiscard]] bool expired() const;
  // The expiry of a 0 ms timeout: due at once, whatever the time (so it costs no clock read).
  static constexpr clock::time_point at_once = clock::time_point::min();
  std::optional<clock::time_point> expiry_;   // curl's, as last told; none: no timeout
  std::optional<clock::time_point> waiting_;  // the expiry of the wait in charge, if any
  // Identifies the wait in charge: completions of replaced or cancelled waits (aborted, or
  // already queued when they were replaced) carry an older number and are ignored.
  std::uint64_t generation_ = 0;
  bool post_pending_ = false;
  bool stopped_ = false;
  std::uint64_t waits_started_ = 0;
  std::uint64_t posts_ = 0;
};

}  // namespace idem::detail
