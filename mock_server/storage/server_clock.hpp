#pragma once
// The server's clocks, both moved forward together by POST /_mock/clock:
// - wall time (`now_ms`): the system clock plus an offset; TTLs, created_at and Date use it. The
//   offset is stored in the database (table `settings`), so it survives a restart; reset() sets
//   it to 0.
// - lease time (`lease_now_ms`): a monotonic clock plus the same offset. Leases only live as long
//   as the process that took them (they are all expired at start-up), so they need no wall time,
//   and a wall clock stepped by NTP or by hand must neither extend a crashed executor's lease nor
//   cut a live one short.

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>

#include "mock_server/storage/sqlite.hpp"

namespace idem::mock {

/// Where the server reads time; empty functions mean the real clocks. Tests inject their own.
struct clock_sources {
  std::function<std::chrono::system_clock::time_point()> wall;
  std::function<std::chrono::steady_clock::time_point()> monotonic;
};

/// Not thread-safe; uses the caller's connection.
class server_clock {
 public:
  using source = std::function<std::chrono::system_clock::time_point()>;
  /// The largest total offset the clock accepts (about 100 years): far beyond any test's need,
  /// far below where milliseconds since the epoch could overflow.
  static constexpr std::chrono::milliseconds max_offset{3'155'760'000'000};

  /// Reads the stored offset (0 if none, clamped to [0, max_offset]).
  explicit server_clock(database& db, source now_source = {});
  server_clock(database& db, clock_sources sources);
  /// Milliseconds since the Unix epoch, offset included.
  [[nodiscard]] std::int64_t now_ms() const;
  /// Milliseconds on the monotonic clock, offset included: what leases are measured in.
  [[nodiscard]] std::int64_t lease_now_ms() const;
  /// Moves the clock forward by `by` and stores the new offset. Returns false, changing nothing,
  /// when `by` is negative or the total offset would pass `max_offset`.
  [[nodiscard]] bool advance(std::chrono::milliseconds by);
  /// Sets the offset back to 0 and stores it.
  void reset();
  [[nodiscard]] std::chrono::milliseconds offset() const noexcept { return offset_; }

 private:
  database& db_;
  clock_sources sources_;
  std::chrono::milliseconds offset_{0};
};

}  // namespace idem::mock
