#include "transfer_deadlines.hpp"

namespace idem::detail {

std::vector<std::uint64_t> transfer_deadlines::take_due(clock::time_point now) {
  std::vector<std::uint64_t> ids;
  auto end = due_.upper_bound(now);
  for (auto it = due_.begin(); it != end; ++it)
    ids.push_back(it->second);
  due_.erase(due_.begin(), end);
  return ids;
}

std::optional<transfer_deadlines::clock::time_point> transfer_deadlines::earliest() const {
  if (due_.empty()) return std::nullopt;
  return due_.begin()->first;
}

}  // namespace idem::detail
