#include "mock_server/storage/counters.hpp"

#include <stdexcept>

namespace idem::mock {

void counters::increment(std::string_view name, std::int64_t by) {
  if (auto it = pending_.find(name); it != pending_.end()) {
    it->second += by;
  } else {
    pending_.emplace(std::string{name}, by);
  }
}

void counters::increment_in_transaction(std::string_view name, std::int64_t by) {
  if (!db_.in_transaction()) {
    throw std::logic_error("counters::increment_in_transaction outside a transaction");
  }
  upsert(name, by);
}

void counters::upsert(std::string_view name, std::int64_t by) {
  // One UPSERT: no read-modify-write window, and it joins the caller's transaction.
  auto& stmt = db_.prepare(
      "INSERT INTO counters (name, value) VALUES (?1, ?2)"
      " ON CONFLICT (name) DO UPDATE SET value = value + excluded.value");
  stmt.bind(1, name).bind(2, by).run();
}

std::int64_t counters::get(std::string_view name) {
  auto& stmt = db_.prepare("SELECT value FROM counters WHERE name = ?1");
  stmt.bind(1, name);
  std::int64_t value = stmt.step() ? stmt.int64(0) : 0;
  stmt.reset();
  if (auto it = pending_.find(name); it != pending_.end()) value += it->second;
  return value;
}

std::map<std::string, std::int64_t> counters::all() {
  auto& stmt = db_.prepare("SELECT name, value FROM counters");
  std::map<std::string, std::int64_t> out;
  while (stmt.step()) {
    out.emplace(stmt.text(0), stmt.int64(1));
  }
  stmt.reset();
  for (const auto& [name, by] : pending_)
    out[name] += by;
  return out;
}

void counters::persist() {
  if (pending_.empty()) return;
  if (db_.in_transaction()) throw std::logic_error("counters::persist inside a transaction");
  transaction txn{db_};
  for (const auto& [name, by] : pending_)
    upsert(name, by);
  txn.commit();
  pending_.clear();
}

}  // namespace idem::mock
