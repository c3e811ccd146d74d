#pragma once
// Named counters kept in the database (table `counters`) so that /_mock/stats survives a restart.
// An increment made inside the caller's transaction commits or rolls back with it.

#include <cstdint>
#include <map>
#include <string>
#include <string_view>

#include "mock_server/sqlite.hpp"

namespace idem::mock {

/// Not thread-safe; uses the caller's connection.
class counters {
 public:
  explicit counters(database& db) : db_(db) {}
  /// UPSERT value = value + by.
  void increment(std::string_view name, std::int64_t by = 1);
  /// 0 for a counter never incremented.
  [[nodiscard]] std::int64_t get(std::string_view name);
  [[nodiscard]] std::map<std::string, std::int64_t> all();

 private:
  database& db_;
};

}  // namespace idem::mock
