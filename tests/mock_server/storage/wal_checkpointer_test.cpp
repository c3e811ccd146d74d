#include "mock_server/storage/wal_checkpointer.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <string>

#include "tests/support/temp_db_file.hpp"

namespace idem::mock {
namespace {

using kit::temp_db_file;

// A frame is one page (4096 bytes by default) plus its 24-byte header.
constexpr std::uintmax_t frame_bytes = 4096 + 24;
constexpr int never = 1'000'000'000;

// Each commit adds a row that fills most of a page: at least one frame per commit.
void commit_rows(database& db, int n) {
  const std::string filler(3500, 'x');
  for (int i = 0; i < n; ++i) {
    db.prepare("INSERT INTO t (v) VALUES (?1)").bind(1, filler).run();
  }
}

std::uintmax_t size_of(const std::string& path) {
  std::error_code ec;
  const auto n = std::filesystem::file_size(path, ec);
  return ec ? 0 : n;
}

class wal_checkpointer_test : public ::testing::Test {
 protected:
  void SetUp() override { db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)"); }
  [[nodiscard]] std::string wal() const { return file.path() + "-wal"; }

  temp_db_file file;
  database db{file.path()};
};

// SQLite's own hook would have checkpointed and rewound the WAL at 1000 frames.
TEST_F(wal_checkpointer_test, CommitsNoLongerCheckpointByThemselves) {
  wal_checkpointer checkpoints{db, {.wake_frames = never, .limit_frames = never}};
  commit_rows(db, 2500);
  EXPECT_GT(size_of(wal()), 2000 * frame_bytes);
  EXPECT_EQ(checkpoints.writer_checkpoints(), 0U);
  EXPECT_EQ(checkpoints.background_checkpoints(), 0U);
}

TEST_F(wal_checkpointer_test, BackgroundThreadCheckpointsOnceTheWalGrewByWakeFrames) {
  wal_checkpointer checkpoints{db, {.wake_frames = 100, .limit_frames = never}};
  const auto before = size_of(file.path());
  commit_rows(db, 150);
  ASSERT_TRUE(checkpoints.wait_for_background_checkpoints(1, std::chrono::seconds(20)));
  EXPECT_GT(size_of(file.path()), before);  // pages were copied into the database file
  EXPECT_EQ(checkpoints.writer_checkpoints(), 0U);
}

// Without the background thread (never woken), the writer's limit alone keeps the WAL bounded:
// each checkpoint copies every frame, so the next commit rewinds the WAL.
TEST_F(wal_checkpointer_test, WriterCheckpointsPastTheLimitSoTheWalStaysBounded) {
  wal_checkpointer checkpoints{db, {.wake_frames = never, .limit_frames = 200}};
  commit_rows(db, 1000);
  EXPECT_GE(checkpoints.writer_checkpoints(), 2U);
  EXPECT_LT(size_of(wal()), 400 * frame_bytes);
}

TEST_F(wal_checkpointer_test, CommittedRowsAreReadableAfterCheckpointsAndReopening) {
  {
    wal_checkpointer checkpoints{db, {.wake_frames = 50, .limit_frames = 120}};
    commit_rows(db, 300);
  }
  database reopened{file.path()};
  auto& count = reopened.prepare("SELECT COUNT(*) FROM t");
  ASSERT_TRUE(count.step());
  EXPECT_EQ(count.int64(0), 300);
  count.reset();
}

// After the checkpointer is gone, SQLite checkpoints on commit again.
TEST_F(wal_checkpointer_test, DestructionGivesCheckpointingBackToSqlite) {
  { wal_checkpointer checkpoints{db, {.wake_frames = never, .limit_frames = never}}; }
  commit_rows(db, 2500);
  EXPECT_LT(size_of(wal()), 1200 * frame_bytes);
}

TEST(wal_checkpointer, MemoryDatabaseHasNoWalAndNoThread) {
  database db{":memory:"};
  db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT)");
  wal_checkpointer checkpoints{db, {.wake_frames = 1, .limit_frames = 2}};
  commit_rows(db, 10);
  EXPECT_EQ(checkpoints.background_checkpoints(), 0U);
  EXPECT_EQ(checkpoints.writer_checkpoints(), 0U);
}

}  // namespace
}  // namespace idem::mock
