// The durable intent store: opening a journal, and recording events. Each event is applied to
// its in-memory record at once and queued for the writer thread (sqlite_journal_writer.cpp),
// which commits everything queued in one transaction. See include/idem/sqlite_journal.hpp for
// the contract, docs/JOURNAL.md for why.
#include "idem/sqlite_journal.hpp"

#include <filesystem>

#include "platform/utf8_path.hpp"
#include "store/sqlite/sqlite_journal_codec.hpp"
#include "store/sqlite/sqlite_journal_impl.hpp"
#include "store/sqlite/sqlite_journal_schema.hpp"

namespace idem {

using detail::sqlite_statement;
using detail::statement_use;

namespace {

// The entry of a record read back from the file.
sqlite_journal::impl::entry stored_entry(intent_record r, std::uint64_t seq, std::int64_t rowid,
                                         std::uint64_t lines) {
  sqlite_journal::impl::entry en{
      .record = std::move(r), .seq = seq, .in_file = true, .rowid = rowid, .file_lines = lines};
  en.file_state = en.record.state;
  en.file_finished_at = en.record.finished_at;
  return en;
}

}  // namespace

bool sqlite_journal::impl::prepare(std::error_code& ec, std::string& why) {
  int rc = SQLITE_OK;
  auto prepare_one = [&](detail::sqlite_connection& db, sqlite_statement& s, const char* sql) {
    if (rc == SQLITE_OK) s = sqlite_statement(db.get(), sql, rc);
    if (rc != SQLITE_OK && !ec) {
      ec = db.error_of(rc);
      why = "cannot prepare the journal's statements on " + options.path + ": " + db.message();
    }
  };
  if (writer) {
    auto& w = *writer;
    prepare_one(w.db, w.begin, "BEGIN IMMEDIATE");
    prepare_one(w.db, w.commit, "COMMIT");
    prepare_one(w.db, w.rollback, "ROLLBACK");
    prepare_one(w.db, w.insert, detail::insert_intent_sql);
    prepare_one(w.db, w.upsert, detail::upsert_intent_sql);
    prepare_one(w.db, w.rowid_of, "SELECT rowid FROM intents WHERE key = ?1");
    prepare_one(w.db, w.update_progress, detail::update_progress_sql);
    prepare_one(w.db, w.update_progress_and_state, detail::update_progress_and_state_sql);
    prepare_one(w.db, w.purge_intents,
                "DELETE FROM intents WHERE state <> 'open' AND finished_at < ?1");
    // Replaces SQLite's automatic checkpoint (sqlite_journal_writer.cpp, checkpoint_if_due).
    sqlite3_wal_hook(
        w.db.get(),
        [](void* frames, sqlite3*, const char*, int n) {
          *static_cast<int*>(frames) = n;
          return SQLITE_OK;
        },
        &wal_frames);
  }
  if (reader.has_schema) {
    prepare_one(reader.db, reader.intent, detail::select_intent_sql_for(reader.version));
    prepare_one(reader.db, reader.timeline, detail::select_timeline_sql_for(reader.version));
    prepare_one(reader.db, reader.open_intents,
                detail::select_open_intents_sql_for(reader.version));
    // Abandoned intents were never sent; open ones count as unresolved once maybe sent (read
    // as a writer's open would recover them, if need be: detail::read_as_recovered).
    const std::string maybe_sent =
        std::string("(reached_server OR attempts > attempts_finished") +
        (reader.recovers ? " OR (path_bound AND last_outcome IS NULL))" : ")");
    const std::string counts =
        "SELECT count(*), "
        "coalesce(sum(state = 'succeeded'), 0), coalesce(sum(state = 'rejected'), 0), "
        "coalesce(sum(state = 'abandoned' OR (state = 'open' AND NOT " +
        maybe_sent + ")), 0), coalesce(sum(state = 'open' AND " + maybe_sent + "), 0) FROM intents";
    prepare_one(reader.db, reader.counts, counts.c_str());
  }
  return rc == SQLITE_OK;
}

// At open: every open intent into memory, and where the sequences continue.
bool sqlite_journal::impl::load(std::error_code& ec, std::string& why) {
  if (!reader.has_schema) return true;
  int rc = SQLITE_OK;
  {
    // Over the open intents only, through their index (the open reads no row of the table):
    // seq orders the open intents and keys the in-memory list of them, and no final intent
    // becomes open again, so a new intent needs a seq above every open one's. A final
    // intent's seq may come again; nothing reads it.
    sqlite_statement max_seq(reader.db.get(),
                             "SELECT coalesce(max(seq), 0) FROM intents WHERE state = 'open'", rc);
    if (rc == SQLITE_OK && (rc = max_seq.step()) == SQLITE_ROW) {
      next_intent_seq = static_cast<std::uint64_t>(max_seq.column_int(0)) + 1;
      rc = SQLITE_OK;
    }
  }
  if (rc == SQLITE_OK && writer) {
    statement_use use(reader.open_intents);
    while ((rc = reader.open_intents.step()) == SQLITE_ROW) {
      std::uint64_t seq = 0;
      auto r = detail::read_intent(reader.open_intents, seq);
      if (!r) {
        ec = journal_errc::corrupt;
        why = options.path + " holds an intent row that cannot be read back";
        return false;
      }
      std::string key = r->what.key().str();
      const auto rowid = detail::read_rowid(reader.open_intents);
      const auto lines = detail::read_timeline_lines(reader.open_intents);
      auto& node =
          *records.emplace(std::move(key), stored_entry(std::move(*r), seq, rowid, lines)).first;
      open.emplace(seq, &node);
    }
    if (rc == SQLITE_DONE) rc = SQLITE_OK;
  }
  if (rc != SQLITE_OK) {
    ec = reader.db.error_of(rc);
    why = "cannot read " + options.path + ": " + reader.db.message();
    return false;
  }
  return true;
}

std::shared_ptr<sqlite_journal> sqlite_journal::open(journal_options options, std::error_code& ec,
                                                     std::string* detail_out) try {
  std::string why;
  ec = {};
  auto d = std::make_unique<impl>();
  d->options = std::move(options);
  if (!d->options.wall_clock)
    d->options.wall_clock = [] { return std::chrono::system_clock::now(); };
  const auto& path = d->options.path;
  auto failed = [&] {
    if (detail_out) *detail_out = std::move(why);
    return nullptr;
  };
  if (!d->options.read_only) {
    // By the file the path resolves to, not by its spelling: a symlink or another spelling of
    // the same file takes the same lock.
    std::error_code resolve_ec;
    const auto resolved =
        std::filesystem::weakly_canonical(detail::path_from_utf8(path), resolve_ec);
    d->lock = detail::journal_file_lock((resolve_ec ? path : detail::utf8_of(resolved)) + ".lock",
                                        ec, why);
    if (ec) return failed();
  }
  auto opened = detail::open_journal_database(d->options, ec, why);
  if (!opened) return failed();
  if (d->options.read_only) {
    d->reader.db = std::move(opened->db);
    d->reader.has_schema = opened->has_schema;
    d->reader.version = opened->version;
    d->reader.recovers = !opened->closed_cleanly;
  } else {
    d->writer.emplace();
    d->writer->db = std::move(opened->db);
    auto reader = detail::open_journal_reader(path, ec, why);
    if (!reader) return failed();
    d->reader.db = std::move(*reader);
    d->reader.version = detail::journal_schema_version;  // upgraded by the writer's open
  }
  if (!d->prepare(ec, why)) return failed();
  if (d->writer) d->purge(d->options.wall_clock() - d->options.audit_retention);
  if (!d->load(ec, why)) return failed();
  auto* raw = d.get();
  raw->room->drop = [raw](const boost::asio::execution_context* ctx) { raw->drop_waiters_of(ctx); };
  std::shared_ptr<sqlite_journal> journal(new sqlite_journal(std::move(d)));
  if (raw->writer) raw->thread = std::thread([raw] { raw->writer_loop(); });
  return journal;
} catch (const std::exception& e) {  // out of memory, no thread: nothing is half open
  ec = journal_errc::io;
  if (detail_out) *detail_out = std::string("cannot open the journal: ") + e.what();
  return nullptr;
}

sqlite_journal::sqlite_journal(std::unique_ptr<impl> d) : d_(std::move(d)) {}

sqlite_journal::~sqlite_journal() {
  if (d_->thread.joinable()) {
    {
      std::lock_guard lock(d_->mutex);
      d_->stopping = true;
    }
    d_->wake.notify_one();
    d_->thread.join();
    // Clean only if the last commit took everything: a start it could not commit (a full disk)
    // may have left, and only an unclean close makes the next open read it as maybe sent.
    if (d_->dirty.empty()) detail::mark_clean_shutdown(d_->writer->db);
  }
  // The writer's last batch took every waiter; any left could never be made durable. A
  // waiter of an event loop that is gone was dropped when it went.
  std::lock_guard room_lock(d_->room->mutex);
  d_->room->drop = nullptr;
  for (auto& w : d_->waiters)
    detail::complete(w, journal_errc::closed);
  d_->waiters.clear();
}

// Applies `e` to its record and queues its timeline line. False for an event of an intent the
// journal does not know (ignored).
bool sqlite_journal::impl::record_locked(const intent_event& e, bool reader_held) {
  const std::string& key = key_of(e).str();
  const auto* created = std::get_if<events::created>(&e);
  auto it = records.find(key);
  if (it == records.end()) {
    // Not in memory: a new intent, or a final one already committed (read it back, so that a
    // late event updates the stored record instead of replacing it).
    auto stored = reader_held ? read_record_locked(key) : read_record(key);
    if (created) {
      if (stored) return true;  // a created for a known key changes nothing
      const auto seq = next_intent_seq++;
      it = records.emplace(key, entry{.record = make_record(*created), .seq = seq}).first;
      open.emplace(seq, &*it);
    } else {
      if (!stored) return false;
      it = records
               .emplace(key, stored_entry(std::move(stored->record), stored->seq, stored->rowid,
                                          stored->lines))
               .first;
      if (it->second.record.is_open()) open.emplace(it->second.seq, &*it);
    }
  } else if (created) {
    return true;
  }
  entry& en = it->second;
  const bool was_open = en.record.is_open();
  apply(en.record, e);
  if (was_open && !en.record.is_open()) open.erase(en.seq);
  ++en.version;
  if (created || std::holds_alternative<events::path_bound>(e)) en.what_version = en.version;
  if (!en.queued) {
    en.queued = true;
    dirty.push_back(&*it);
    ++queued_since_commit;
  }
  detail::append_timeline_line(en.lines, timeline_of(e));
  ++en.queued_lines;
  work = true;
  return true;
}

namespace {

// Records what `record` records (`mutex` held; false if nothing of a known intent) and queues
// one write that waits for the commit taking it all.
template <class Record>
void write_waited(sqlite_journal::impl& d, boost::asio::any_io_executor ex,
                  intent_store::write_handler handler, std::size_t writes, Record record) {
  if (d.options.read_only) {
    detail::complete_now(std::move(ex), std::move(handler), journal_errc::read_only);
    return;
  }
  auto w = detail::make_waiter(std::move(ex), std::move(handler));
  d.watch(w);
  bool known = false;
  bool wake = false;
  try {
    std::lock_guard lock(d.mutex);
    known = record(d);
    if (known) {
      d.waiters.push_back(std::move(w));
      d.waited_writes += writes;
      wake = !d.gathering;  // a gathering writer commits when its wait ends
    }
  } catch (...) {  // out of memory: the write may not be recorded, say so
    detail::complete(w, journal_errc::io);
    return;
  }
  if (wake)
    d.wake.notify_one();
  else if (!known)
    detail::complete(w, {});  // an unknown intent's event: nothing to make durable
}

// Whether an attempt's start of `en` may go without waiting for its commit: the intent is in
// the file as it will be sent (its created and its bound path committed) and no submission of
// it has ended. A process that dies before the start is committed then leaves the intent open in
// the file with nothing maybe sent and no outcome, which the recovery of the unclean close reads as
// maybe sent (recover_unrecorded_starts_sql, sqlite_journal_schema.cpp). So a planned or
// resumed intent makes one durable point, its plan's, instead of one per attempt (issue 47).
// An ended submission (say, not sent) waits again: its outcome may be in the file, and the
// recovery never rewrites an outcome.
bool start_needs_no_wait(const sqlite_journal::impl::entry& en) noexcept {
  return en.in_file && en.committed >= en.what_version && en.record.path_bound &&
         !en.record.last_outcome;
}

}  // namespace

bool sqlite_journal::impl::record_all_locked(const std::vector<intent_event>& events) {
  // One read transaction instead of one per read: each takes and lets go of the WAL's read
  // lock, two fcntl system calls, for every intent of a plan. Nothing the reads could miss is
  // committed meanwhile: a commit ends by taking `mutex`, held here.
  std::lock_guard lock(read_mutex);
  records.reserve(records.size() + events.size());  // one rehash for a plan, not one per doubling
  const bool batched = events.size() > 1 && reader.db.exec("BEGIN") == SQLITE_OK;
  bool known = false;
  try {
    for (const auto& e : events)
      known = record_locked(e, true) || known;
  } catch (...) {
    if (batched) reader.db.exec("COMMIT");
    throw;
  }
  if (batched) reader.db.exec("COMMIT");
  return known;
}

bool sqlite_journal::impl::defer_locked() {
  // The batch just became full: the writer commits it now (woken once, at the crossing).
  if (queued_since_commit == deferred_batch_limit()) return true;
  if (deferred_since) return false;
  deferred_since = std::chrono::steady_clock::now();
  return true;
}

bool sqlite_journal::impl::record_unwaited_start(const intent_event& e) {
  bool first = false;
  {
    std::lock_guard lock(mutex);
    const auto it = records.find(key_of(e).str());
    if (it == records.end() || !start_needs_no_wait(it->second)) return false;
    record_locked(e);
    first = defer_locked();
  }
  if (first) wake.notify_one();
  return true;
}

void sqlite_journal::async_write(intent_event e, boost::asio::any_io_executor ex,
                                 write_handler handler) {
  // A start this journal covers needs no commit: completed at once (a caller that asks
  // write_if_covered first, as the client does, never gets here with one).
  if (write_if_covered(e)) {
    detail::complete_now(std::move(ex), std::move(handler), {});
    return;
  }
  write_waited(*d_, std::move(ex), std::move(handler), 1,
               [&e](impl& d) { return d.record_locked(e); });
}

bool sqlite_journal::write_if_covered(const intent_event& e) {
  if (d_->options.read_only || !std::holds_alternative<events::attempt_started>(e)) return false;
  try {
    return d_->record_unwaited_start(e);
  } catch (...) {  // out of memory: async_write tries again, and says so if it fails too
    return false;
  }
}

void sqlite_journal::async_write_all(std::vector<intent_event> events,
                                     boost::asio::any_io_executor ex, write_handler handler) {
  write_waited(*d_, std::move(ex), std::move(handler), events.size(),
               [&events](impl& d) { return d.record_all_locked(events); });
}

void sqlite_journal::write(intent_event e) {
  if (d_->options.read_only) return;
  bool first = false;
  {
    std::lock_guard lock(d_->mutex);
    if (!d_->record_locked(e)) return;
    // Committed with the next waited write, or once the delay ran out: the writer needs waking
    // only to start that clock.
    first = d_->defer_locked();
  }
  if (first) d_->wake.notify_one();
}

void sqlite_journal::async_flush(boost::asio::any_io_executor ex, write_handler handler) {
  if (d_->options.read_only) {
    detail::complete_now(std::move(ex), std::move(handler), {});
    return;
  }
  auto w = detail::make_waiter(std::move(ex), std::move(handler));
  d_->watch(w);
  {
    std::lock_guard lock(d_->mutex);
    d_->waiters.push_back(std::move(w));
    d_->flush_now = true;  // not held back by a gathering writer
  }
  d_->wake.notify_one();
}

std::size_t sqlite_journal::purge_final_before(wall_time cutoff) {
  return d_->writer ? d_->purge(cutoff) : 0;
}

bool sqlite_journal::disable_sqlite_memory_statistics() noexcept {
  // SQLITE_MISUSE once SQLite is initialised (sqlite3_config is for before that only).
  return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) == SQLITE_OK;
}

std::uint64_t sqlite_journal::commits() const {
  return d_->commits.load(std::memory_order_relaxed);
}

}  // namespace idem
