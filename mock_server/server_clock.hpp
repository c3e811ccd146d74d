#pragma once
// The server's clock: the system clock plus an offset that POST /_mock/clock advances. The offset
// is stored in the database (table `settings`), so it survives a restart; reset() sets it to 0.

#include <chrono>
#include <cstdint>
#include <functional>

#include "mock_server/sqlite.hpp"

namespace idem::mock {

/// Not thread-safe; uses the caller's connection.
class server_clock {
 public:
  using source = std::function<std::chrono::system_clock::time_point()>;
  /// Reads the stored offset (0 if none). `now_source` defaults to the system clock.
  explicit server_clock(database& db, source now_source = {});
  /// Milliseconds since the Unix epoch, offset included.
  [[nodiscard]] std::int64_t now_ms() const;
  /// Moves the clock forward by `by` (must be >= 0) and stores the new offset.
  void advance(std::chrono::milliseconds by);
  /// Sets the offset back to 0 and stores it.
  void reset();
  [[nodiscard]] std::chrono::milliseconds offset() const noexcept { return offset_; }

 private:
  database& db_;
  source source_;
  std::chrono::milliseconds offset_{0};
};

}  // namespace idem::mock
