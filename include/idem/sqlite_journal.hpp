#pragma once
/// @file
/// The durable intent store: a SQLite journal, one file in the app's data directory. Every
/// intent is written down before its first attempt, and every attempt's start before its first
/// byte leaves unless the intent is already in the file (then a process that dies before the
/// start is committed leaves the intent read back as maybe sent), so a process that is killed
/// at any point can be resumed with the same keys and an honest account of what may have
/// reached the server.

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <system_error>

#include "idem/intent_store.hpp"
#include "idem/journal_error.hpp"

namespace idem {

/// What a commit survives.
enum class journal_durability {
  /// `synchronous=FULL`: a completed write survives a power loss or an OS crash (fsync per
  /// commit). The default: this is money.
  full,
  /// `synchronous=NORMAL` (WAL): a completed write survives the process being killed; the last
  /// commits may be lost on power loss. Cheaper; the journal is never corrupted either way.
  normal,
};

struct journal_options {
  std::string path;  ///< the journal file (created if missing; its directory must exist)
  journal_durability durability = journal_durability::full;
  /// Final intents are purged this long after they became final (at open, then hourly).
  std::chrono::hours audit_retention{24 * 30};
  /// Events the client does not wait for (an attempt's end, a wait, a lookup, the outcome, and
  /// the start of an intent already in the file) are committed with the next write it waits
  /// for (a new intent's start, a plan), or this long after they happened if none comes
  /// first, or at `async_flush` and when the journal closes: one fsync per intent at most, none
  /// of its own for a planned one. A process killed before then loses only those lines: the
  /// intent is read back as possibly sent, and a resume asks the server again under the same
  /// key, which replays its answer (docs/JOURNAL.md, "What waits for a commit"). Zero commits
  /// every event at once.
  std::chrono::milliseconds deferred_commit_delay{1000};
  /// ... or once this many intents have changes not yet committed, whichever comes first: under
  /// load the writer then commits while the requests run instead of all at once when the delay
  /// runs out (a 16-in-flight load finished 20,000 intents within that second and then waited
  /// for their commit), and the records waiting for it stay bounded. Zero or one commits every
  /// event at once.
  std::size_t deferred_commit_intents = 1024;
  /// Group commit under load: when the last commit made writes of more than one waiting caller
  /// durable (intents in flight side by side), the writer waits this long before its next
  /// commit, so that the writes arriving meanwhile share its fsync instead of each paying one.
  /// A write alone (one intent at a time) is never delayed (the first after a burst waits
  /// once), nor is `async_flush`. The cost is this much latency per waited write under load,
  /// plus the system's timer slack (50 µs on Linux): docs/JOURNAL.md, "Group commit under
  /// load". Zero commits at once.
  std::chrono::microseconds commit_gather{50};
  /// Open without the writer lock and without writing: for inspection (`idem-cli journal`)
  /// while another process may be using the journal. Writes then fail with read_only.
  bool read_only = false;
  /// The wall clock used for purging (injectable for tests).
  std::function<wall_time()> wall_clock = [] { return std::chrono::system_clock::now(); };
  /// For tests: caps the file at this many pages (`PRAGMA max_page_count`; pages are 4 KiB), so
  /// that a commit needing more fails with journal_errc::full as on a full disk. Unset in
  /// production.
  std::optional<std::uint32_t> max_pages{};
};

/// Counts over every intent the journal holds.
struct journal_counts {
  std::uint64_t intents = 0;
  std::uint64_t succeeded = 0;
  std::uint64_t rejected = 0;
  /// Open intents never sent, or whose every attempt provably never left; and abandoned ones.
  std::uint64_t not_sent = 0;
  /// Open intents that may have reached the server.
  std::uint64_t unresolved = 0;
};

/// A SQLite journal (WAL mode). One writer thread of its own commits the events of every
/// intent that arrived since its last commit in one transaction (group commit), so the client's
/// event loop never waits on fsync and 16 intents in flight share commits. Open intents, and
/// final ones whose last writes are not yet committed, are held in memory; final intents are
/// read back from the file on demand.
///
/// Safety: an exclusive lock (`PATH.lock`, flock) allows one process at a time (a second gets
/// journal_errc::locked); a damaged or truncated file fails `open` with journal_errc::corrupt
/// and is never rewritten; a failed commit (full disk, read-only file) completes the waiting
/// writes with the error and keeps their records for the next commit.
///
/// Thread-safety: every member may be called from any thread. Destruction commits what is
/// queued, then stops the writer thread.
class sqlite_journal final : public intent_store {
 public:
  /// Opens (or creates) the journal at `options.path`. On failure returns nullptr and sets `ec`
  /// (journal_errc); `detail` (if given) receives a human-readable explanation.
  [[nodiscard]] static std::shared_ptr<sqlite_journal> open(journal_options options,
                                                            std::error_code& ec,
                                                            std::string* detail = nullptr);
  ~sqlite_journal() override;
  sqlite_journal(const sqlite_journal&) = delete;
  sqlite_journal& operator=(const sqlite_journal&) = delete;

  void async_write(intent_event e, boost::asio::any_io_executor ex, write_handler handler) override;
  /// All under one lock, one write waiting for the commit that takes them all.
  void async_write_all(std::vector<intent_event> events, boost::asio::any_io_executor ex,
                       write_handler handler) override;
  void write(intent_event e) override;
  /// True (recorded) for the start of an intent in the file with its path bound and no
  /// submission ended: see docs/JOURNAL.md, "What waits for a commit".
  [[nodiscard]] bool write_if_covered(const intent_event& e) override;
  [[nodiscard]] std::optional<intent_record> find(const idempotency_key& key) const override;
  [[nodiscard]] std::vector<intent_record> open_intents() const override;
  [[nodiscard]] std::vector<timeline_entry> timeline(const idempotency_key& key) const override;

  /// Counts over every intent in the file (committed state).
  [[nodiscard]] journal_counts counts() const;
  /// Purges final intents that became final before `cutoff`; returns how many.
  std::size_t purge_final_before(wall_time cutoff);
  /// Completes once everything written so far is committed (or failed).
  void async_flush(boost::asio::any_io_executor ex, write_handler handler) override;
  /// Commits processed so far (for measuring group commit).
  [[nodiscard]] std::uint64_t commits() const;

  /// Turns off SQLite's memory statistics (`SQLITE_CONFIG_MEMSTATUS`) for the whole process,
  /// if SQLite has not started yet: each of SQLite's allocations then skips a global mutex and
  /// its counters, about 6,000 instructions of the journal's work per intent (docs/JOURNAL.md,
  /// "What it costs"). Process-wide, so idem never does it unasked: call it first
  /// thing in main(), before any thread opens an SQLite database, and only if nothing in the
  /// process reads SQLite's memory use (sqlite3_memory_used() and sqlite3_status() then say 0)
  /// or sets a heap limit (sqlite3_soft_heap_limit64() and sqlite3_hard_heap_limit64() are then
  /// not enforced). False, and nothing changed, if SQLite had started already.
  static bool disable_sqlite_memory_statistics() noexcept;

  struct impl;

 private:
  explicit sqlite_journal(std::unique_ptr<impl> d);
  std::unique_ptr<impl> d_;
};

}  // namespace idem
