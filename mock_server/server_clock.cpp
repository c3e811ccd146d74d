#include "mock_server/server_clock.hpp"

#include <stdexcept>
#include <utility>

namespace idem::mock {

namespace {

constexpr std::string_view offset_setting = "clock_offset_ms";

std::chrono::milliseconds load_offset(database& db) {
  auto& stmt = db.prepare("SELECT value FROM settings WHERE name = ?1");
  stmt.bind(1, offset_setting);
  const std::int64_t ms = stmt.step() ? stmt.int64(0) : 0;
  stmt.reset();
  return std::chrono::milliseconds{ms};
}

void store_offset(database& db, std::chrono::milliseconds offset) {
  auto& stmt = db.prepare(
      "INSERT INTO settings (name, value) VALUES (?1, ?2)"
      " ON CONFLICT (name) DO UPDATE SET value = excluded.value");
  stmt.bind(1, offset_setting).bind(2, static_cast<std::int64_t>(offset.count())).run();
}

}  // namespace

server_clock::server_clock(database& db, source now_source)
    : db_(db),
      source_(now_source ? std::move(now_source)
                         : source{[] { return std::chrono::system_clock::now(); }}),
      offset_(load_offset(db)) {}

std::int64_t server_clock::now_ms() const {
  using namespace std::chrono;
  return duration_cast<milliseconds>(source_().time_since_epoch()).count() + offset_.count();
}

void server_clock::advance(std::chrono::milliseconds by) {
  // The clock only moves forward: going back would revive expired leases and records.
  if (by.count() < 0) throw std::invalid_argument("server_clock::advance: negative duration");
  const auto next = offset_ + by;
  store_offset(db_, next);  // stored first: memory never runs ahead of the database
  offset_ = next;
}

void server_clock::reset() {
  store_offset(db_, std::chrono::milliseconds{0});
  offset_ = std::chrono::milliseconds{0};
}

}  // namespace idem::mock
