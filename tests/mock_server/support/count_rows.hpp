#pragma once
// The number of rows in `table` of the mock server's database, read through its own wrapper.

#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "mock_server/storage/sqlite.hpp"

namespace idem::mock::test {

inline std::int64_t count_rows(database& db, const std::string& table) {
  auto& stmt = db.prepare("SELECT COUNT(*) FROM " + table);
  EXPECT_TRUE(stmt.step());
  auto n = stmt.int64(0);
  stmt.reset();
  return n;
}

}  // namespace idem::mock::test
