#pragma once
// When each transfer in flight runs out of time, measured from when the transport accepted it.
//
// curl counts a transfer's CURLOPT_TIMEOUT_MS from the moment it starts working on it, not from
// curl_multi_add_handle: when a thousand transfers are added at once, curl opens their
// connections one after another in a single action, and the last ones started about 350 ms
// late on the 2-core machine, so their attempts (and the intents whose deadline they carried)
// ended that much past their deadline. The transport keeps its own due times here and ends a
// transfer that is past its own, whatever curl's clock says.
//
// The entries live in the transfers themselves (an intrusive tree): tracking a transfer
// allocates nothing, where a std::multimap took a 48-byte node (64 with malloc's overhead) for
// each of thousands in flight.

#include <boost/intrusive/set.hpp>
#include <chrono>
#include <cstdint>
#include <optional>
#include <vector>

namespace idem::detail {

/// One transfer's due time; embedded in the transfer, which must outlive its tracking.
struct transfer_due
    : boost::intrusive::set_base_hook<boost::intrusive::link_mode<boost::intrusive::safe_link>,
                                      boost::intrusive::optimize_size<true>> {
  std::chrono::steady_clock::time_point at{};
  std::uint64_t id = 0;
  /// Tracked: added and neither removed nor taken since.
  [[nodiscard]] bool tracked() const noexcept { return is_linked(); }
};

/// Due times of transfers by id. Pure bookkeeping; the transport owns the timer.
class transfer_deadlines {
 public:
  using clock = std::chrono::steady_clock;

  transfer_deadlines() = default;
  transfer_deadlines(const transfer_deadlines&) = delete;
  transfer_deadlines& operator=(const transfer_deadlines&) = delete;
  ~transfer_deadlines() { due_.clear(); }  // lets go of entries still tracked

  /// Tracks `e` (not tracked yet) for transfer `id`, due at `at`.
  void add(transfer_due& e, std::uint64_t id, clock::time_point at);
  /// Stops tracking `e`, if it is tracked.
  void remove(transfer_due& e) noexcept;
  /// Stops tracking and returns, earliest first, the transfers due at or before `now`.
  [[nodiscard]] std::vector<std::uint64_t> take_due(clock::time_point now);
  /// The earliest due time, if any transfer is tracked.
  [[nodiscard]] std::optional<clock::time_point> earliest() const;
  [[nodiscard]] bool empty() const noexcept { return due_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return due_.size(); }

 private:
  struct by_time {
    bool operator()(const transfer_due& a, const transfer_due& b) const noexcept {
      return a.at < b.at;
    }
  };
  boost::intrusive::multiset<transfer_due, boost::intrusive::compare<by_time>,
                             boost::intrusive::constant_time_size<true>>
      due_;
};

}  // namespace idem::detail
