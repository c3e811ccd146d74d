#pragma once
/// @file
/// A virtual-time scheduler for tests: no test ever sleeps. Header-only.

#include <boost/asio/append.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/post.hpp>
#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include "idem/scheduler.hpp"

namespace idem::kit {

/// Virtual clock + timers.
/// - `auto_advance` (default): a wait is queued and a step is posted; each step jumps the virtual
///   clock to the earliest queued wait's due time (never backwards) and completes it by posting.
///   An io_context::run() therefore drives a whole retry loop in virtual time.
/// - `manual`: waits stay queued until advance() moves the clock past them.
/// Cancelled waits complete with `std::errc::operation_canceled`.
/// Thread-safety: none; use from the single thread that runs the io_context.
class fake_scheduler final : public scheduler {
 public:
  enum class mode { auto_advance, manual };

  explicit fake_scheduler(boost::asio::any_io_executor ex, mode m = mode::auto_advance)
      : ex_(std::move(ex)), mode_(m) {}

  [[nodiscard]] clock::time_point now() const override { return now_; }
  [[nodiscard]] std::chrono::system_clock::time_point wall_now() const override {
    return wall_start_ +
           std::chrono::duration_cast<std::chrono::system_clock::duration>(now_ - start_);
  }
  /// Virtual time since construction.
  [[nodiscard]] clock::duration elapsed() const { return now_ - start_; }
  /// Moves the clock forward without completing anything (e.g. a transfer that took time).
  void pass(clock::duration d) { now_ += d; }
  /// Moves the clock forward and completes (by posting) every wait due by then, in due order.
  void advance(clock::duration d) {
    now_ += d;
    while (!queue_.empty() && queue_.begin()->first.first <= now_)
      fire(queue_.begin());
  }
  /// Waits queued and not completed.
  [[nodiscard]] std::size_t pending() const { return queue_.size(); }
  /// Every wait asked for, in order (the requested duration).
  [[nodiscard]] const std::vector<clock::duration>& waits() const { return waits_; }

 protected:
  void wait_impl(clock::duration d,
                 boost::asio::any_completion_handler<signature> handler) override {
    waits_.push_back(d);
    const auto id = next_id_++;
    const key k{now_ + std::max(d, clock::duration::zero()), id};
    auto slot = boost::asio::get_associated_cancellation_slot(handler);
    if (slot.is_connected()) {
      // The test keeps the scheduler alive for the whole run.
      slot.assign([this, k](boost::asio::cancellation_type) {
        auto it = queue_.find(k);
        if (it != queue_.end()) complete(it, true);
      });
    }
    queue_.emplace(k, std::move(handler));
    if (mode_ == mode::auto_advance) {
      boost::asio::post(ex_, [this] {
        if (queue_.empty()) return;
        auto it = queue_.begin();
        if (it->first.first > now_) now_ = it->first.first;
        fire(it);
      });
    }
  }

 private:
  using key = std::pair<clock::time_point, std::uint64_t>;
  using handler_type = boost::asio::any_completion_handler<signature>;

  void fire(std::map<key, handler_type>::iterator it) { complete(it, false); }
  void complete(std::map<key, handler_type>::iterator it, bool cancelled) {
    handler_type h = std::move(it->second);
    queue_.erase(it);
    // Not from inside the slot's own handler: clearing would destroy the running handler.
    auto slot = boost::asio::get_associated_cancellation_slot(h);
    if (!cancelled && slot.is_connected()) slot.clear();
    // post(ex_, handler) runs the handler on its own associated executor (fallback: ex_).
    boost::asio::post(
        ex_, boost::asio::append(std::move(h),
                                 cancelled ? std::make_error_code(std::errc::operation_canceled)
                                           : std::error_code{}));
  }

  boost::asio::any_io_executor ex_;
  mode mode_;
  // An arbitrary origin far from zero, so time_point arithmetic never goes negative.
  clock::time_point start_ = clock::time_point{} + std::chrono::hours(1000);
  clock::time_point now_ = start_;
  std::chrono::system_clock::time_point wall_start_ =
      std::chrono::system_clock::time_point{} + std::chrono::seconds(1'750'000'000);
  std::map<key, handler_type> queue_;
  std::vector<clock::duration> waits_;
  std::uint64_t next_id_ = 0;
};

}  // namespace idem::kit
