#pragma once
// When each transfer in flight runs out of time, measured from when the transport accepted it.
//
// curl counts a transfer's CURLOPT_TIMEOUT_MS from the moment it starts working on it, not from
// curl_multi_add_handle: when a thousand transfers are added at once, curl opens their
// connections one after another in a single action, and the last ones started about 350 ms
// late on the 2-core machine, so their attempts (and the intents whose deadline they carried)
// ended that much past their deadline. The transport keeps its own due times here and ends a
// transfer that is past its own, whatever curl's clock says.

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

namespace idem::detail {

/// Due times of transfers by id. Pure bookkeeping; the transport owns the timer.
class transfer_deadlines {
 public:
  using clock = std::chrono::steady_clock;
  using entry = std::multimap<clock::time_point, std::uint64_t>::iterator;

  /// Adds transfer `id`, due at `due`; keep the entry to remove it when the transfer ends.
  entry add(std::uint64_t id, clock::time_point due) { return due_.emplace(due, id); }
  /// Forgets an entry that add() returned and take_due() has not.
  void remove(entry e) { due_.erase(e); }
  /// Removes and returns, earliest first, the transfers due at or before `now`.
  [[nodiscard]] std::vector<std::uint64_t> take_due(clock::time_point now);
  /// The earliest due time, if any transfer is tracked.
  [[nodiscard]] std::optional<clock::time_point> earliest() const;
  [[nodiscard]] bool empty() const noexcept { return due_.empty(); }
  [[nodiscard]] std::size_t size() const noexcept { return due_.size(); }

 private:
  std::multimap<clock::time_point, std::uint64_t> due_;
};

}  // namespace idem::detail
