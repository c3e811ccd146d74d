#include "flight/single_flight.hpp"

#include "flight/submit_operation.hpp"

namespace idem::detail {

std::shared_ptr<submit_operation> single_flight::find(const std::string& key) const {
  auto it = flights_.find(hashed_key(key));
  return it == flights_.end() ? nullptr : it->second;
}

void single_flight::insert(std::shared_ptr<submit_operation> op) {
  const hashed_key key(op->what().key().str());
  // Erased first: the entry's key views the flight it maps to, so it goes with it.
  flights_.erase(key);
  flights_.emplace(key, std::move(op));
}

void single_flight::erase(const std::string& key, const submit_operation* op) {
  auto it = flights_.find(hashed_key(key));
  if (it != flights_.end() && it->second.get() == op) flights_.erase(it);
}

std::vector<std::shared_ptr<submit_operation>> single_flight::all() const {
  std::vector<std::shared_ptr<submit_operation>> out;
  out.reserve(flights_.size());
  for (const auto& [k, op] : flights_)
    out.push_back(op);
  return out;
}

}  // namespace idem::detail
