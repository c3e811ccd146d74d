#include "mock_server/storage/server_clock.hpp"

#include <algorithm>
#include <utility>

namespace idem::mock {

namespace {

constexpr std::string_view offset_setting = "clock_offset_ms";

std::chrono::milliseconds load_offset(database& db) {
  auto& stmt = db.prepare("SELECT value FROM settings WHERE name = ?1");
  stmt.bind(1, offset_setting);
  const std::int64_t ms = stmt.step() ? stmt.int64(0) : 0;
  stmt.reset();
  // A file written by an older server may hold an offset that wrapped: never start backwards.
  return std::chrono::milliseconds{
      std::clamp<std::int64_t>(ms, 0, server_clock::max_offset.count())};
}

void store_offset(database& db, std::chrono::milliseconds offset) {
  auto& stmt = db.prepare(
      "INSERT INTO settings (name, value) VALUES (?1, ?2)"
      " ON CONFLICT (name) DO UPDATE SET value = excluded.value");
  stmt.bind(1, offset_setting).bind(2, static_cast<std::int64_t>(offset.count())).run();
}

template <class Clock>
std::int64_t ms_since_epoch(typename Clock::time_point tp) {
  return std::chrono::duration_cast<std::chrono::milliseconds>(tp.time_since_epoch()).count();
}

}  // namespace

server_clock::server_clock(database& db, source now_source)
    : server_clock(db, clock_sources{.wall = std::move(now_source), .monotonic = {}}) {}

server_clock::server_clock(database& db, clock_sources sources)
    : db_(db), sources_(std::move(sources)), offset_(load_offset(db)) {
  if (!sources_.wall) sources_.wall = [] { return std::chrono::system_clock::now(); };
  if (!sources_.monotonic) sources_.monotonic = [] { return std::chrono::steady_clock::now(); };
}

std::int64_t server_clock::now_ms() const {
  return ms_since_epoch<std::chrono::system_clock>(sources_.wall()) + offset_.count();
}

std::int64_t server_clock::lease_now_ms() const {
  return ms_since_epoch<std::chrono::steady_clock>(sources_.monotonic()) + offset_.count();
}

bool server_clock::advance(std::chrono::milliseconds by) {
  // The clock only moves forward: going back would revive expired leases and records. Checked
  // without computing offset_ + by, which could overflow.
  if (by.count() < 0 || by > max_offset - offset_) return false;
  const auto next = offset_ + by;
  store_offset(db_, next);  // stored first: memory never runs ahead of the database
  offset_ = next;
  return true;
}

void server_clock::reset() {
  store_offset(db_, std::chrono::milliseconds{0});
  offset_ = std::chrono::milliseconds{0};
}

}  // namespace idem::mock
