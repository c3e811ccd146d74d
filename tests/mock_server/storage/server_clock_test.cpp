#include "mock_server/storage/server_clock.hpp"
#include "tests/support/temp_db_file.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <random>
#include <stdexcept>
#include <string>

#include "mock_server/storage/schema.hpp"

namespace idem::mock {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t clock_t0 = 1'795'989'600'000;  // 2026-11-29T22:00:00Z

using kit::temp_db_file;

// A fixed "system clock" at clock_t0: tests never read the real time.
server_clock::source fixed_source() {
  return [] { return std::chrono::system_clock::time_point{std::chrono::milliseconds{clock_t0}}; };
}

class server_clock_test : public ::testing::Test {
 protected:
  void SetUp() override { create_schema(db); }
  database db{":memory:"};
};

TEST_F(server_clock_test, WithoutAStoredOffsetItReadsTheSource) {
  server_clock clock{db, fixed_source()};
  EXPECT_EQ(clock.offset(), 0ms);
  EXPECT_EQ(clock.now_ms(), clock_t0);
}

TEST_F(server_clock_test, AdvanceMovesNowForwardAndAccumulates) {
  server_clock clock{db, fixed_source()};
  ASSERT_TRUE(clock.advance(90s));
  ASSERT_TRUE(clock.advance(500ms));
  EXPECT_EQ(clock.offset(), 90'500ms);
  EXPECT_EQ(clock.now_ms(), clock_t0 + 90'500);
}

TEST_F(server_clock_test, NegativeAdvanceIsRefusedAndChangesNothing) {
  server_clock clock{db, fixed_source()};
  ASSERT_TRUE(clock.advance(1s));
  EXPECT_FALSE(clock.advance(-1ms));
  EXPECT_EQ(clock.offset(), 1s);
  EXPECT_EQ(server_clock(db, fixed_source()).offset(), 1s);
}

TEST_F(server_clock_test, OffsetIsStoredInSettingsUnderClockOffsetMs) {
  server_clock clock{db, fixed_source()};
  ASSERT_TRUE(clock.advance(2s));
  auto& stmt = db.prepare("SELECT value FROM settings WHERE name = 'clock_offset_ms'");
  ASSERT_TRUE(stmt.step());
  EXPECT_EQ(stmt.int64(0), 2000);
  stmt.reset();
}

TEST_F(server_clock_test, ResetSetsTheOffsetBackToZeroAndStoresIt) {
  server_clock clock{db, fixed_source()};
  ASSERT_TRUE(clock.advance(1h));
  clock.reset();
  EXPECT_EQ(clock.offset(), 0ms);
  EXPECT_EQ(clock.now_ms(), clock_t0);
  EXPECT_EQ(server_clock(db, fixed_source()).offset(), 0ms);
}

TEST_F(server_clock_test, WipedDatabaseStartsAClockWithoutOffset) {
  ASSERT_TRUE(server_clock(db, fixed_source()).advance(1h));
  wipe_all(db);
  EXPECT_EQ(server_clock(db, fixed_source()).offset(), 0ms);
}

TEST_F(server_clock_test, DefaultSourceIsTheSystemClock) {
  server_clock clock{db};
  auto ms = [](std::chrono::system_clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(t.time_since_epoch()).count();
  };
  auto before = ms(std::chrono::system_clock::now());
  auto now = clock.now_ms();
  auto after = ms(std::chrono::system_clock::now());
  EXPECT_LE(before, now);
  EXPECT_LE(now, after);
}

// Two advances of 9.2e15 ms used to wrap the offset negative (persisted: leases never expired).
TEST_F(server_clock_test, AdvanceThatWouldPassTheMaximumOffsetIsRefusedAndChangesNothing) {
  server_clock clock{db, fixed_source()};
  const std::chrono::milliseconds huge{9'200'000'000'000'000};
  EXPECT_FALSE(clock.advance(huge));
  ASSERT_TRUE(clock.advance(server_clock::max_offset - 1ms));
  EXPECT_FALSE(clock.advance(2ms));
  EXPECT_FALSE(clock.advance(std::chrono::milliseconds::max()));
  EXPECT_EQ(clock.offset(), server_clock::max_offset - 1ms);
  ASSERT_TRUE(clock.advance(1ms));
  EXPECT_EQ(clock.now_ms(), clock_t0 + server_clock::max_offset.count());
}

TEST_F(server_clock_test, StoredOffsetThatWrappedNegativeStartsAtZero) {
  auto& stmt = db.prepare("INSERT INTO settings (name, value) VALUES ('clock_offset_ms', ?1)");
  stmt.bind(1, std::int64_t{-9'000'000'000'000'000}).run();
  EXPECT_EQ(server_clock(db, fixed_source()).offset(), 0ms);
}

// Leases are measured on the monotonic clock: a wall clock stepped forward (NTP, by hand) must not
// expire a running executor's lease, and one stepped back must not extend a crashed one's.
TEST_F(server_clock_test, LeaseTimeFollowsTheMonotonicClockAndTheOffsetNotTheWallClock) {
  std::chrono::system_clock::time_point wall{std::chrono::milliseconds{clock_t0}};
  std::chrono::steady_clock::time_point mono{std::chrono::hours(5)};
  server_clock clock{
      db, clock_sources{.wall = [&] { return wall; }, .monotonic = [&] { return mono; }}};
  const auto lease_start = clock.lease_now_ms();
  wall += std::chrono::hours(2);
  EXPECT_EQ(clock.lease_now_ms(), lease_start);
  EXPECT_EQ(clock.now_ms(), clock_t0 + 2 * 3600 * 1000);
  mono += 1500ms;
  EXPECT_EQ(clock.lease_now_ms(), lease_start + 1500);
  ASSERT_TRUE(clock.advance(31s));  // the admin clock moves leases too
  EXPECT_EQ(clock.lease_now_ms(), lease_start + 1500 + 31'000);
}

TEST(server_clock_file, OffsetSurvivesReopeningTheDatabase) {
  temp_db_file file;
  {
    database db{file.path()};
    create_schema(db);
    ASSERT_TRUE(server_clock(db, fixed_source()).advance(25h));
  }
  database db{file.path()};
  create_schema(db);
  server_clock clock{db, fixed_source()};
  EXPECT_EQ(clock.offset(), 25h);
  EXPECT_EQ(clock.now_ms(), clock_t0 + 25 * 3600 * 1000);
}

}  // namespace
}  // namespace idem::mock
