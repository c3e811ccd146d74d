#include "mock_server/counters.hpp"

namespace idem::mock {

void counters::increment(std::string_view name, std::int64_t by) {
  // One UPSERT: no read-modify-write window, and it joins the caller's transaction if any.
  auto& stmt = db_.prepare(
      "INSERT INTO counters (name, value) VALUES (?1, ?2)"
      " ON CONFLICT (name) DO UPDATE SET value = value + excluded.value");
  stmt.bind(1, name).bind(2, by).run();
}

std::int64_t counters::get(std::string_view name) {
  auto& stmt = db_.prepare("SELECT value FROM counters WHERE name = ?1");
  stmt.bind(1, name);
  const std::int64_t value = stmt.step() ? stmt.int64(0) : 0;
  stmt.reset();
  return value;
}

std::map<std::string, std::int64_t> counters::all() {
  auto& stmt = db_.prepare("SELECT name, value FROM counters");
  std::map<std::string, std::int64_t> out;
  while (stmt.step()) {
    out.emplace(stmt.text(0), stmt.int64(1));
  }
  return out;
}

}  // namespace idem::mock
