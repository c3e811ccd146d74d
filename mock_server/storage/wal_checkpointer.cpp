#include "mock_server/storage/wal_checkpointer.hpp"

#include <sqlite3.h>

#include <iostream>

namespace idem::mock {

namespace {

// SQLite's compiled-in default (SQLITE_DEFAULT_WAL_AUTOCHECKPOINT is internal to sqlite3.c).
constexpr int sqlite_default_autocheckpoint = 1000;

// The file behind the main schema; empty for `:memory:` and temporary databases.
std::string file_of(database& db) {
  const char* name = sqlite3_db_filename(db.handle(), "main");
  return name != nullptr ? std::string{name} : std::string{};
}

bool uses_wal(database& db) {
  auto& stmt = db.prepare("PRAGMA journal_mode");
  const bool wal = stmt.step() && stmt.text(0) == "wal";
  stmt.reset();
  return wal;
}

}  // namespace

wal_checkpointer::wal_checkpointer(database& db, wal_checkpoint_options options)
    : db_(db), options_(options) {
  auto path = file_of(db_);
  if (path.empty() || !uses_wal(db_)) return;
  // Replaces SQLite's own hook (wal_autocheckpoint): commits no longer checkpoint by themselves.
  sqlite3_wal_hook(db_.handle(), &wal_checkpointer::on_commit, this);
  active_ = true;
  thread_ = std::thread([this, path = std::move(path)] { run(path); });
}

wal_checkpointer::~wal_checkpointer() {
  if (!active_) return;
  {
    std::lock_guard lock{mutex_};
    stopping_ = true;
  }
  wake_.notify_one();
  thread_.join();
  // Back to SQLite's default (also when the connection outlives this object).
  sqlite3_wal_autocheckpoint(db_.handle(), sqlite_default_autocheckpoint);
}

std::uint64_t wal_checkpointer::background_checkpoints() const {
  std::lock_guard lock{mutex_};
  return background_checkpoints_;
}

bool wal_checkpointer::wait_for_background_checkpoints(std::uint64_t count,
                                                       std::chrono::milliseconds limit) const {
  std::unique_lock lock{mutex_};
  return checkpointed_.wait_for(lock, limit, [&] { return background_checkpoints_ >= count; });
}

int wal_checkpointer::on_commit(void* self, sqlite3* /*db*/, const char* /*schema*/, int frames) {
  static_cast<wal_checkpointer*>(self)->commit_hook(frames);
  return SQLITE_OK;  // a hook's error would be reported as the COMMIT's, which did succeed
}

void wal_checkpointer::commit_hook(int frames) {
  if (frames < frames_at_last_wake_) frames_at_last_wake_ = 0;  // the WAL was rewound
  if (frames >= options_.limit_frames) {
    // The background checkpoints cannot rewind a WAL that grows while they copy: finish the job
    // here, where no write can come in between. SQLITE_BUSY (the thread is checkpointing right
    // now) is harmless: the next commit tries again.
    if (sqlite3_wal_checkpoint_v2(db_.handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr,
                                  nullptr) == SQLITE_OK) {
      ++writer_checkpoints_;
    }
    frames_at_last_wake_ = 0;
    return;
  }
  if (frames - frames_at_last_wake_ < options_.wake_frames) return;
  frames_at_last_wake_ = frames;
  {
    std::lock_guard lock{mutex_};
    requested_ = true;
  }
  wake_.notify_one();
}

void wal_checkpointer::run(std::string path) {
  try {
    database own{path};
    for (;;) {
      {
        std::unique_lock lock{mutex_};
        wake_.wait(lock, [this] { return requested_ || stopping_; });
        if (stopping_) return;
        requested_ = false;
      }
      // PASSIVE: copies what it can without waiting for, or blocking, the writer and readers.
      const int rc = sqlite3_wal_checkpoint_v2(own.handle(), nullptr, SQLITE_CHECKPOINT_PASSIVE,
                                               nullptr, nullptr);
      if (rc == SQLITE_OK) {
        {
          std::lock_guard lock{mutex_};
          ++background_checkpoints_;
        }
        checkpointed_.notify_all();
      } else if (rc != SQLITE_BUSY) {
        std::cerr << "idem-mock-server: WAL checkpoint failed: " << sqlite3_errstr(rc) << '\n';
      }
    }
  } catch (const std::exception& e) {
    // The writer's limit keeps the WAL bounded without this thread.
    std::cerr << "idem-mock-server: WAL checkpointer stopped: " << e.what() << '\n';
  }
}

}  // namespace idem::mock
