#pragma once
// Keeps WAL checkpoints off the request path. By default SQLite checkpoints inside the COMMIT that
// takes the WAL past 1000 frames: that request pays for two fsyncs and for copying the pages back
// into the database file. Here the server's connection stops checkpointing on its own, and a
// thread with a connection of its own runs PASSIVE checkpoints (they never block the writer)
// whenever the WAL has grown by `wake_frames` since the last one.
//
// A PASSIVE checkpoint copies only the frames that were in the WAL when it began; under steady
// writes it therefore never catches up completely, and the WAL is only rewound once every frame
// has been copied. So that the file stays bounded, a commit that finds the WAL beyond
// `limit_frames` checkpoints on the writer's own connection, as SQLite would have done: by then
// the background thread has copied nearly everything, so little is left to copy there.
//
// Durability is unchanged: checkpoints move committed pages from the WAL into the database file
// and never decide whether a commit is durable.

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>

#include "mock_server/storage/sqlite.hpp"

namespace idem::mock {

struct wal_checkpoint_options {
  int wake_frames = 1000;    ///< WAL size (frames) that wakes the background checkpoint
  int limit_frames = 16000;  ///< WAL size at which the writer checkpoints itself (about 64 MB)
};

/// Thread-safety: construct and destroy on the thread that uses `db`; the hook it installs runs
/// there (after each commit). The background thread touches only its own connection.
class wal_checkpointer {
 public:
  /// Installs the commit hook on `db` and starts the thread. Does nothing for a database that is
  /// not a WAL file (`:memory:`).
  wal_checkpointer(database& db, wal_checkpoint_options options = {});
  /// Stops and joins the thread and gives the commit hook back to SQLite's own checkpointing.
  ~wal_checkpointer();
  wal_checkpointer(const wal_checkpointer&) = delete;
  wal_checkpointer& operator=(const wal_checkpointer&) = delete;

  /// Checkpoints that the background thread completed (for tests and diagnostics).
  [[nodiscard]] std::uint64_t background_checkpoints() const;
  /// Waits until the background thread has completed `count` checkpoints in all, at most
  /// `limit`; true if it has (for tests: the limit only turns a hang into a failure).
  [[nodiscard]] bool wait_for_background_checkpoints(std::uint64_t count,
                                                     std::chrono::milliseconds limit) const;
  /// Checkpoints run by the writer because the WAL passed `limit_frames`.
  [[nodiscard]] std::uint64_t writer_checkpoints() const noexcept { return writer_checkpoints_; }

 private:
  static int on_commit(void* self, sqlite3* db, const char* schema, int frames);
  void commit_hook(int frames);
  void run(std::string path);

  database& db_;
  wal_checkpoint_options options_;
  bool active_ = false;
  int frames_at_last_wake_ = 0;  ///< WAL size when the thread was last woken (writer's thread)
  std::uint64_t writer_checkpoints_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  mutable std::condition_variable checkpointed_;
  bool requested_ = false;                    ///< guarded by mutex_
  bool stopping_ = false;                     ///< guarded by mutex_
  std::uint64_t background_checkpoints_ = 0;  ///< guarded by mutex_
  std::thread thread_;
};

}  // namespace idem::mock
