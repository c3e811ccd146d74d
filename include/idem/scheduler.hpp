#pragma once
/// @file
/// The injectable clock and timer: everything in the client that reads the time or waits does it
/// through a scheduler, so tests run retry loops in virtual time and never sleep.

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <chrono>
#include <system_error>

namespace idem {

/// Clock + timer interface.
/// Implementations must: complete every wait exactly once, never inline from async_wait, on the
/// handler's associated executor; honour per-operation cancellation (the wait then completes with
/// `std::errc::operation_canceled`). Thread-safety: stated by each implementation.
class scheduler {
 public:
  using clock = std::chrono::steady_clock;
  using signature = void(std::error_code);
  virtual ~scheduler() = default;

  /// Monotonic time: deadlines, backoff, the retry budget.
  [[nodiscard]] virtual clock::time_point now() const = 0;
  /// Wall-clock time: only for reading `Retry-After` dates.
  [[nodiscard]] virtual std::chrono::system_clock::time_point wall_now() const = 0;

  /// Waits `d` (0 or negative: completes soon, still not inline). Any completion token.
  template <class CompletionToken>
  auto async_wait(clock::duration d, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, signature>(
        [this](auto handler, clock::duration wait) {
          wait_impl(wait, boost::asio::any_completion_handler<signature>(std::move(handler)));
        },
        token, d);
  }

 protected:
  virtual void wait_impl(clock::duration d,
                         boost::asio::any_completion_handler<signature> handler) = 0;
};

/// The production scheduler: std::chrono::steady_clock/system_clock and an asio::steady_timer
/// per wait. Thread-safe: waits may be started from any thread; each completes on its handler's
/// associated executor (default: the executor given here).
class asio_scheduler final : public scheduler {
 public:
  explicit asio_scheduler(boost::asio::any_io_executor ex) : ex_(std::move(ex)) {}
  [[nodiscard]] clock::time_point now() const override { return clock::now(); }
  [[nodiscard]] std::chrono::system_clock::time_point wall_now() const override {
    return std::chrono::system_clock::now();
  }

 protected:
  void wait_impl(clock::duration d,
                 boost::asio::any_completion_handler<signature> handler) override;

 private:
  boost::asio::any_io_executor ex_;
};

}  // namespace idem
