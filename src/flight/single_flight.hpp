#pragma once
// Internal: the submissions in flight, by key, so that a second submit of the same intent joins
// the first instead of sending again. Used only on the client's strand: not synchronised.

#include <memory>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "util/hashed_key.hpp"

namespace idem::detail {

class submit_operation;

class single_flight {
 public:
  [[nodiscard]] std::shared_ptr<submit_operation> find(const std::string& key) const;
  // Under the key of `op`'s intent (replacing any flight under it).
  void insert(std::shared_ptr<submit_operation> op);
  // Removes `key` only if it still maps to `op` (a finished flight never evicts a newer one).
  void erase(const std::string& key, const submit_operation* op);
  [[nodiscard]] std::vector<std::shared_ptr<submit_operation>> all() const;
  [[nodiscard]] std::size_t size() const { return flights_.size(); }

 private:
  // Each key views the key of the intent of the flight it maps to (which it keeps alive): no
  // copy of it per flight.
  std::unordered_map<hashed_key, std::shared_ptr<submit_operation>, hashed_key_hash> flights_;
};

}  // namespace idem::detail
