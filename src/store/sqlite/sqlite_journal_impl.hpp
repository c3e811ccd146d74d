#pragma once
// Internal: the state a sqlite_journal shares between the threads that call it and its writer
// thread, and how a waiting write is completed. Private to the idem library; the members are
// defined in sqlite_journal.cpp (opening, recording events), sqlite_journal_writer.cpp (the
// writer thread: group commit, purge) and sqlite_journal_reads.cpp (find, timeline, counts).
//
// Locks, always taken in this order: write_mutex (the writer connection), room->mutex (writes
// being completed, and the callers' event loops that are gone), mutex (the in-memory records
// and queues), read_mutex (the reader connection).

#include <algorithm>
#include <atomic>
#include <boost/asio/any_completion_executor.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "idem/sqlite_journal.hpp"
#include "store/sqlite/journal_context_watch.hpp"
#include "store/sqlite/journal_file_lock.hpp"
#include "store/sqlite/sqlite_connection.hpp"
#include "store/sqlite/sqlite_journal_codec.hpp"
#include "util/hashed_key.hpp"

namespace idem::detail {

/// A write waiting for its commit. The tracked executors keep the caller's event loop alive
/// until the completion is posted.
struct journal_waiter {
  boost::asio::execution_context* context = nullptr;  // io_work's (journal_context_watch.hpp)
  boost::asio::any_io_executor io_work;
  boost::asio::any_completion_executor handler_work;
  intent_store::write_handler handler;
};

[[nodiscard]] journal_waiter make_waiter(boost::asio::any_io_executor ex,
                                         intent_store::write_handler handler);
/// Posts the completion (never inline) to the handler's executor, through the caller's.
void complete(journal_waiter& w, std::error_code ec) noexcept;
/// Completes `handler` with `ec` at once (posted).
void complete_now(boost::asio::any_io_executor ex, intent_store::write_handler handler,
                  std::error_code ec) noexcept;

}  // namespace idem::detail

namespace idem {

struct sqlite_journal::impl {
  struct entry {
    intent_record record;
    std::uint64_t seq = 0;        // creation order
    std::uint64_t version = 0;    // bumped by every event applied
    std::uint64_t committed = 0;  // the version last committed
    // What the file holds of it, so that a commit writes only what changed: the whole row for
    // a new intent or a changed path and lookup (`what_version` > `committed`), else its
    // progress, with the indexed state and finish time only when they changed.
    std::uint64_t what_version = 0;  // the version that last changed the intent itself
    bool in_file = false;            // its row exists
    std::int64_t rowid = 0;          // its row's, once in_file: how commits find the row
    intent_state file_state = intent_state::open;
    std::optional<wall_time> file_finished_at{};
    bool queued = false;  // in `dirty`
    // Its timeline lines not yet committed, as the row keeps them (the codec's text), and how
    // many lines the row has: a reader takes from `lines` only what the file lacks.
    std::string lines{};
    std::uint32_t queued_lines = 0;
    std::uint64_t file_lines = 0;
  };
  // Keyed by the intents' keys (hashed_key.hpp: the key's own hash at every size). Node-based:
  // a pointer to an element stays valid until that element is erased, which only the writer
  // thread does, holding write_mutex (a commit, the purge).
  using record_map = std::unordered_map<std::string, entry, detail::text_hash>;
  using record_node = record_map::value_type;
  enum class row_write { whole, progress, progress_and_state };
  struct snapshot {     // what a commit writes of a dirty record, as it is at commit time
    record_node* node;  // its key binds the row: stable through the commit (write_mutex held)
    std::uint64_t seq;
    std::uint64_t version;
    row_write how;
    std::int64_t rowid = 0;                // 0: a new row, its rowid learnt by the insert
    std::optional<intent_record> whole{};  // for row_write::whole
    detail::intent_progress progress{};    // for the others (its state and finish time: all)
    std::string lines{};                   // appended to the row's timeline
    std::uint32_t line_count = 0;
  };
  // What a commit wrote of a record, for the record once the commit succeeded (committed_to):
  // a batch keeps one per record, and its snapshots only a chunk at a time.
  struct receipt {
    record_node* node;
    std::uint64_t version;
    row_write how;
    std::int64_t rowid;
    intent_state state;
    std::optional<wall_time> finished_at;
    std::size_t lines_size;  // of `lines`: how much of the entry's queued text went
    std::uint32_t line_count;
  };
  // The connection the writer thread commits on (purge_final_before shares it).
  struct writer_side {
    detail::sqlite_connection db;
    detail::sqlite_statement begin, commit, rollback, insert, upsert, rowid_of, update_progress,
        update_progress_and_state, purge_intents;
    detail::lookup_text_memo lookups;
  };
  // A connection for reads beside the writer (the only one of a read-only journal).
  struct reader_side {
    detail::sqlite_connection db;
    detail::sqlite_statement intent, timeline, open_intents, counts;
    bool has_schema = true;
    std::int64_t version = 0;  // the file's format (older than this code's only when read-only)
    // A read-only reader of a file not closed cleanly: reads as a writer's open would recover.
    bool recovers = false;
  };

  journal_options options;
  detail::journal_file_lock lock;  // released last

  std::mutex write_mutex;  // the writer side; taken before `mutex`
  std::optional<writer_side> writer;
  mutable std::mutex read_mutex;  // the reader side; taken after `mutex`, never before
  mutable reader_side reader;

  mutable std::mutex mutex;  // everything below
  std::condition_variable wake;
  record_map records;  // open, and final not committed
  // seq -> record, oldest first. An open record is never erased (only final ones are), so the
  // pointer stays valid; a copy of the key here cost each planned intent an allocation more.
  std::map<std::uint64_t, record_node*> open;
  std::vector<record_node*> dirty;  // changed since their last commit
  std::vector<detail::journal_waiter> waiters;
  // The event loops writes are completed on, and which of them are gone; `completing` (the
  // writes of the batch being committed) is guarded by room->mutex.
  std::shared_ptr<detail::journal_room> room = std::make_shared<detail::journal_room>();
  std::vector<detail::journal_waiter> completing;
  std::atomic<const boost::asio::execution_context*> last_watched{nullptr};
  bool work = false;  // something to commit arrived since the writer last looked
  // When the oldest event not waited for and not yet committed was recorded: it is committed by
  // options.deferred_commit_delay after that, unless a waited write takes it along first.
  std::optional<std::chrono::steady_clock::time_point> deferred_since;
  // The intents queued in `dirty` since the last commit began: at options.deferred_commit_intents
  // the writer commits without waiting for the delay (a failed commit's, queued again, do not
  // count: a full disk is not retried at every event).
  std::size_t queued_since_commit = 0;
  bool stopping = false;
  std::uint64_t next_intent_seq = 1;
  // Group commit (journal_options::commit_gather): the waited writes queued since the last
  // commit, and how many the last commit took. While `gathering`, writes do not wake the
  // writer: it commits when its wait ends, or at once for a flush (`flush_now`) or the close.
  std::size_t waited_writes = 0;
  std::size_t last_commit_waited = 0;
  bool gathering = false;
  bool flush_now = false;

  std::atomic<std::uint64_t> commits{0};
  // The WAL's frames after the writer's last commit (sqlite3_wal_hook; write_mutex): the writer
  // checkpoints once the commit's waiting writes are completed, not inside that commit.
  // (Here, not in writer_side: a default member initializer there keeps clang from seeing
  // writer_side as default-constructible inside this class's definition.)
  int wal_frames = 0;
  std::chrono::steady_clock::time_point last_purge = std::chrono::steady_clock::now();
  std::thread thread;

  // Opening (sqlite_journal.cpp): every statement prepared; open intents loaded.
  bool prepare(std::error_code& ec, std::string& why);
  // The snapshot of a dirty record (`mutex` held), and what a successful commit of it tells.
  static snapshot snapshot_of(record_node& node);
  static receipt receipt_of(const snapshot& s);
  static void committed_to(entry& en, const receipt& r);
  bool load(std::error_code& ec, std::string& why);
  // Applies an event and queues it (`mutex` held, and read_mutex if `reader_held`); false for
  // an unknown intent's event.
  bool record_locked(const intent_event& e, bool reader_held = false);
  // Starts the clock of the events not waited for (`mutex` held); true if it was not running,
  // or if the batch just became full (deferred_batch_full): the writer needs waking.
  bool defer_locked();
  // How many intents queued since the last commit make a batch worth committing at once
  // (options.deferred_commit_intents; 0 counts as 1).
  std::size_t deferred_batch_limit() const noexcept {
    return std::max<std::size_t>(options.deferred_commit_intents, 1);
  }
  // Whether enough intents wait for a commit to make one now (`mutex` held).
  bool deferred_batch_full() const noexcept {
    return queued_since_commit >= deferred_batch_limit();
  }
  // Records an attempt's start that needs no commit before its first byte (sqlite_journal.cpp,
  // start_needs_no_wait); false, recording nothing, if it needs one.
  bool record_unwaited_start(const intent_event& e);
  // record_locked for each of `events` (`mutex` held); false if none was a known intent's.
  // The reads that tell a new intent from a known one share one read transaction.
  bool record_all_locked(const std::vector<intent_event>& events);
  // The stored record of `key`, its seq, rowid and timeline length (sqlite_journal_reads.cpp).
  struct stored_record {
    intent_record record;
    std::uint64_t seq = 0;
    std::int64_t rowid = 0;
    std::uint64_t lines = 0;
  };
  std::optional<stored_record> read_record(const std::string& key) const;
  std::optional<stored_record> read_record_locked(const std::string& key) const;  // read_mutex held
  // Watches the event loop of `w` (its first write there: journal_context_watch.hpp).
  void watch(const detail::journal_waiter& w);
  // `ctx` is going (room->mutex held): its waiting writes are dropped, uncompleted.
  void drop_waiters_of(const boost::asio::execution_context* ctx);
  // The writer thread (sqlite_journal_writer.cpp).
  void writer_loop() noexcept;
  // Waits (`lock` held on `mutex`) until there is something to commit now.
  void wait_for_work(std::unique_lock<std::mutex>& lock);
  // Before a commit of waited writes (`lock` held): waits commit_gather if the last commit
  // served writes of several callers, for the writes in flight beside them.
  void gather(std::unique_lock<std::mutex>& lock);
  void commit_batch() noexcept;
  // A passive checkpoint once the WAL holds wal_checkpoint_frames (SQLite's own threshold,
  // which it would otherwise apply inside the commit, before the waiting writes complete).
  void checkpoint_if_due() noexcept;
  // Writes the records of `batch` in one transaction, each as it is when its chunk is taken
  // (`mutex` taken per chunk), and says what was written of each in `written`.
  std::error_code write_transaction(const std::vector<record_node*>& batch,
                                    std::vector<receipt>& written);
  // Writes the whole row of `s`; SQLITE_DONE or the error.
  int write_whole_row(snapshot& s);
  std::size_t purge(wall_time cutoff);
};

}  // namespace idem
