#include "transport/transfer_deadlines.hpp"

namespace idem::detail {

void transfer_deadlines::add(transfer_due& e, std::uint64_t id, clock::time_point at) {
  e.id = id;
  e.at = at;
  due_.insert(e);  // after those due at the same time: equal due times keep their order
}

void transfer_deadlines::remove(transfer_due& e) noexcept {
  if (e.tracked()) due_.erase(due_.iterator_to(e));
}

std::vector<std::uint64_t> transfer_deadlines::take_due(clock::time_point now) {
  std::vector<std::uint64_t> ids;
  while (!due_.empty() && due_.begin()->at <= now) {
    ids.push_back(due_.begin()->id);
    due_.erase(due_.begin());
  }
  return ids;
}

std::optional<transfer_deadlines::clock::time_point> transfer_deadlines::earliest() const {
  if (due_.empty()) return std::nullopt;
  return due_.begin()->at;
}

}  // namespace idem::detail
