#include "mock_server/storage/counters.hpp"

#include <stdexcept>

namespace idem::mock {

namespace {

void add(std::map<std::string, std::int64_t, std::less<>>& to, std::string_view name,
         std::int64_t by) {
  if (auto it = to.find(name); it != to.end()) {
    it->second += by;
  } else {
    to.emplace(std::string{name}, by);
  }
}

}  // namespace

void counters::increment(std::string_view name, std::int64_t by) {
  add(pending_, name, by);
  if (totals_) add(*totals_, name, by);
}

void counters::increment_in_transaction(std::string_view name, std::int64_t by) {
  if (!db_.in_transaction()) {
    throw std::logic_error("counters::increment_in_transaction outside a transaction");
  }
  upsert(name, by);
  if (totals_) {
    db_.after_commit([this, name = std::string{name}, by] {
      if (totals_) add(*totals_, name, by);
    });
  }
}

void counters::upsert(std::string_view name, std::int64_t by) {
  // One UPSERT: no read-modify-write window, and it joins the caller's transaction.
  auto& stmt = db_.prepare(
      "INSERT INTO counters (name, value) VALUES (?1, ?2)"
      " ON CONFLICT (name) DO UPDATE SET value = value + excluded.value");
  stmt.bind(1, name).bind(2, by).run();
}

std::map<std::string, std::int64_t, std::less<>> counters::read_table() {
  auto& stmt = db_.prepare("SELECT name, value FROM counters");
  std::map<std::string, std::int64_t, std::less<>> out;
  while (stmt.step()) {
    out.emplace(stmt.text(0), stmt.int64(1));
  }
  stmt.reset();
  for (const auto& [name, by] : pending_)
    add(out, name, by);
  return out;
}

void counters::load() {
  totals_ = read_table();
}

std::map<std::string, std::int64_t, std::less<>> counters::totals() {
  // Inside a transaction the table holds its counts too, which may still roll back: read it as
  // it is then, and keep nothing (the server reads outside transactions, from memory).
  if (db_.in_transaction()) return read_table();
  if (!totals_) load();
  return *totals_;
}

std::int64_t counters::get(std::string_view name) {
  if (!db_.in_transaction() && totals_) {  // the common case, without a copy
    auto it = totals_->find(name);
    return it != totals_->end() ? it->second : 0;
  }
  const auto all = totals();
  auto it = all.find(name);
  return it != all.end() ? it->second : 0;
}

std::map<std::string, std::int64_t> counters::all() {
  const auto all = totals();
  return {all.begin(), all.end()};
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
