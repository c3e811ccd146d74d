// The journal's writer thread: group commit (one transaction for everything queued since the
// last commit, then every waiting write completed), failed commits kept for the next one, and
// the hourly purge of final intents past their audit retention.
#include <algorithm>
#include <boost/asio/append.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/query.hpp>

#include "platform/thread_name.hpp"
#include "store/sqlite/sqlite_journal_codec.hpp"
#include "store/sqlite/sqlite_journal_impl.hpp"

namespace idem {
namespace detail {

journal_waiter make_waiter(boost::asio::any_io_executor ex, intent_store::write_handler handler) {
  auto handler_ex = boost::asio::get_associated_executor(handler, ex);
  return journal_waiter{
      &boost::asio::query(ex, boost::asio::execution::context),
      boost::asio::prefer(ex, boost::asio::execution::outstanding_work.tracked),
      boost::asio::prefer(handler_ex, boost::asio::execution::outstanding_work.tracked),
      std::move(handler)};
}

void complete(journal_waiter& w, std::error_code ec) noexcept {
  try {
    // The hold on the caller's event loop travels with the completion and is released there,
    // after the handler ran: released here, on the writer thread, it could drop the loop's work
    // count to zero (and stop the loop) between the handler and what the handler starts, or
    // after the loop's owner restarted it for its next write. So the completion is posted
    // through an untracked copy: a tracked one (and the copies post makes of it) would be let
    // go here, after the completion may already have run there.
    const auto target =
        boost::asio::prefer(w.io_work, boost::asio::execution::outstanding_work.untracked);
    boost::asio::post(target,
                      [work = std::move(w.io_work), handler_work = std::move(w.handler_work),
                       h = std::move(w.handler), ec]() mutable {
                        // On the handler's own executor (a strand, say): at once if that is where
                        // we are.
                        boost::asio::dispatch(boost::asio::append(std::move(h), ec));
                      });
  } catch (...) {  // out of memory while posting: nothing better can be done here
  }
}

void complete_now(boost::asio::any_io_executor ex, intent_store::write_handler handler,
                  std::error_code ec) noexcept {
  try {
    auto w = make_waiter(std::move(ex), std::move(handler));
    complete(w, ec);
  } catch (...) {
  }
}

}  // namespace detail

namespace {

using detail::sqlite_statement;
using detail::statement_use;

constexpr auto purge_interval = std::chrono::hours{1};
constexpr int wal_checkpoint_frames = 1000;  // SQLite's default wal_autocheckpoint

// One step of a statement that returns no rows; the statement is reset afterwards.
int run(sqlite_statement& s) noexcept {
  statement_use use(s);
  return s.step();
}

}  // namespace

void sqlite_journal::impl::wait_for_work(std::unique_lock<std::mutex>& lock) {
  for (;;) {
    if (stopping || !waiters.empty()) return;   // a write waits, or the journal closes
    if (work && !deferred_since) return;        // a full batch before the clock ran (a limit of 1)
    if (work && deferred_batch_full()) return;  // enough waiting: no point in holding them
    if (!work) {
      wake.wait(lock);
      continue;
    }
    // Only events nobody waits for: they ride with the next waited commit, or go at the due time.
    const auto due = *deferred_since + options.deferred_commit_delay;
    if (std::chrono::steady_clock::now() >= due) return;
    wake.wait_until(lock, due);
  }
}

void sqlite_journal::impl::gather(std::unique_lock<std::mutex>& lock) {
  // Only under load: the last commit served writes of more than one caller. A lone intent's
  // write (one in flight at a time) goes at once.
  if (stopping || flush_now || waiters.empty() || options.commit_gather.count() <= 0 ||
      last_commit_waited < 2) {
    return;
  }
  // A plain timed wait, not one per arriving write: waking the writer for each of them costs
  // the caller's thread a system call and both threads a context switch, which is what the
  // wait is meant to save. A flush or the close cuts it short.
  gathering = true;
  wake.wait_until(lock, std::chrono::steady_clock::now() + options.commit_gather,
                  [this] { return stopping || flush_now; });
  gathering = false;
}

void sqlite_journal::impl::writer_loop() noexcept {
  detail::name_this_thread("idem-journal");  // in top, perf and debuggers
  std::unique_lock lock(mutex);
  for (;;) {
    wait_for_work(lock);
    gather(lock);
    const bool last = stopping;  // one last commit of what is queued, then stop
    lock.unlock();
    commit_batch();
    if (!last) checkpoint_if_due();  // the close checkpoints by itself
    if (!last && std::chrono::steady_clock::now() - last_purge >= purge_interval) {
      try {
        purge(options.wall_clock() - options.audit_retention);
      } catch (...) {  // the clock threw: try again next hour
      }
      last_purge = std::chrono::steady_clock::now();
    }
    lock.lock();
    if (last) return;
  }
}

void sqlite_journal::impl::watch(const detail::journal_waiter& w) {
  if (w.context == nullptr || last_watched.load(std::memory_order_relaxed) == w.context) return;
  detail::watch_context(*w.context, room);
  last_watched.store(w.context, std::memory_order_relaxed);
}

void sqlite_journal::impl::drop_waiters_of(const boost::asio::execution_context* ctx) {
  std::vector<detail::journal_waiter> dropped;  // destroyed after the lock, uncompleted
  auto of_ctx = [ctx](const detail::journal_waiter& w) { return w.context == ctx; };
  auto take = [&](std::vector<detail::journal_waiter>& from) {
    for (auto& w : from)
      if (of_ctx(w)) dropped.push_back(std::move(w));
    std::erase_if(from, of_ctx);
  };
  take(completing);  // room->mutex is held
  {
    std::lock_guard lock(mutex);
    take(waiters);
    if (last_watched.load(std::memory_order_relaxed) == ctx) last_watched.store(nullptr);
  }
}

void sqlite_journal::impl::commit_batch() noexcept {
  std::error_code ec;
  try {
    std::lock_guard write_lock(write_mutex);
    std::vector<record_node*> batch;
    {
      std::lock_guard room_lock(room->mutex);
      std::lock_guard lock(mutex);
      // In creation order: rows are then stored in that order, and the intents in flight at
      // once, created close together, share pages (a commit writes each page it touches).
      std::sort(dirty.begin(), dirty.end(), [](const record_node* a, const record_node* b) {
        return a->second.seq < b->second.seq;
      });
      // A record changed from here on is queued again: the commit may take the change (its
      // snapshot is taken later), and the next commit writes what is left.
      for (record_node* node : dirty)
        node->second.queued = false;
      batch.swap(dirty);
      // Visible to a context's shutdown until they are completed (drop_waiters_of).
      for (auto& w : waiters)
        completing.push_back(std::move(w));
      waiters.clear();
      last_commit_waited = waited_writes;
      waited_writes = 0;
      queued_since_commit = 0;
      flush_now = false;
      work = false;
      deferred_since.reset();
    }
    if (!batch.empty()) {
      std::vector<receipt> written;
      try {
        written.reserve(batch.size());
        ec = write_transaction(batch, written);
      } catch (...) {  // out of memory mid-commit: rolled back, and kept for the next commit
        ec = journal_errc::io;
      }
      std::lock_guard lock(mutex);
      if (!ec) {
        for (const auto& r : written) {
          entry& en = r.node->second;
          committed_to(en, r);
          if (!en.record.is_open() && en.committed == en.version && !en.queued)
            records.erase(r.node->first);
        }
        commits.fetch_add(1, std::memory_order_relaxed);
      } else {
        // Kept for the next commit: the records stay dirty, their lines queued.
        for (record_node* node : batch) {
          if (node->second.queued) continue;
          node->second.queued = true;
          dirty.push_back(node);
        }
      }
      if (dirty.empty()) {  // the batch's room serves the next one
        batch.clear();
        dirty.swap(batch);
      }
    }
  } catch (...) {
    if (!ec) ec = journal_errc::io;
  }
  std::lock_guard room_lock(room->mutex);
  for (auto& w : completing)
    detail::complete(w, ec);
  completing.clear();
}

void sqlite_journal::impl::checkpoint_if_due() noexcept {
  try {
    std::lock_guard write_lock(write_mutex);
    auto& w = *writer;
    if (wal_frames < wal_checkpoint_frames) return;
    wal_frames = 0;  // the next commit reports what is left, and a checkpoint retries then
    // PASSIVE, as SQLite's own: it copies what no reader still needs and never waits for one.
    // A failed one (a full disk) changes nothing that is durable: the WAL keeps the commits.
    sqlite3_wal_checkpoint_v2(w.db.get(), nullptr, SQLITE_CHECKPOINT_PASSIVE, nullptr, nullptr);
  } catch (...) {  // the lock could not be taken: the next commit's checks again
  }
}

sqlite_journal::impl::snapshot sqlite_journal::impl::snapshot_of(record_node& node) {
  const entry& en = node.second;
  snapshot s{.node = &node,
             .seq = en.seq,
             .version = en.version,
             .how = row_write::whole,
             .rowid = en.in_file ? en.rowid : 0,
             .lines = en.lines,
             .line_count = en.queued_lines};
  if (!en.in_file || en.what_version > en.committed) {
    s.whole = en.record;
    s.progress.state = en.record.state;
    s.progress.finished_at = en.record.finished_at;
    return s;
  }
  s.progress = detail::progress_of(en.record);
  s.how = en.record.state != en.file_state || en.record.finished_at != en.file_finished_at
              ? row_write::progress_and_state
              : row_write::progress;
  return s;
}

sqlite_journal::impl::receipt sqlite_journal::impl::receipt_of(const snapshot& s) {
  return receipt{.node = s.node,
                 .version = s.version,
                 .how = s.how,
                 .rowid = s.rowid,
                 .state = s.progress.state,
                 .finished_at = s.progress.finished_at,
                 .lines_size = s.lines.size(),
                 .line_count = s.line_count};
}

void sqlite_journal::impl::committed_to(entry& en, const receipt& r) {
  en.committed = std::max(en.committed, r.version);
  en.in_file = true;
  en.rowid = r.rowid;
  // The lines the commit took; those recorded meanwhile stay queued.
  en.lines.erase(0, r.lines_size);
  en.queued_lines -= r.line_count;
  en.file_lines += r.line_count;
  if (r.how != row_write::progress) {
    en.file_state = r.state;
    en.file_finished_at = r.finished_at;
  }
}

int sqlite_journal::impl::write_whole_row(snapshot& s) {
  auto& w = *writer;
  if (s.rowid == 0) {  // a new intent: its row, and the rowid its later writes find it by
    int rc = SQLITE_OK;
    {
      statement_use use(w.insert);
      detail::bind_intent(w.insert, *s.whole, s.seq, w.lookups);
      w.insert.bind_text_ref(23, s.lines);
      rc = w.insert.step();
    }
    if (rc == SQLITE_DONE) {
      s.rowid = sqlite3_last_insert_rowid(w.db.get());
      return rc;
    }
    // Not expected (a known key's created changes nothing, and a row read back has its
    // rowid); if the key has a row after all, it is rewritten below and its rowid read.
    if ((rc & 0xff) != SQLITE_CONSTRAINT) return rc;
  }
  int rc = SQLITE_OK;
  {
    statement_use use(w.upsert);
    detail::bind_intent(w.upsert, *s.whole, s.seq, w.lookups);
    w.upsert.bind_text_ref(23, s.lines);
    rc = w.upsert.step();
  }
  if (rc != SQLITE_DONE || s.rowid != 0) return rc;
  statement_use use(w.rowid_of);
  w.rowid_of.bind_text_ref(1, s.node->first);
  rc = w.rowid_of.step();
  if (rc != SQLITE_ROW) return rc == SQLITE_DONE ? SQLITE_CORRUPT : rc;
  s.rowid = w.rowid_of.column_int(0);
  return SQLITE_DONE;
}

std::error_code sqlite_journal::impl::write_transaction(const std::vector<record_node*>& batch,
                                                        std::vector<receipt>& written) {
  // Snapshots a chunk at a time: a plan's batch of tens of thousands of intents would
  // otherwise hold a copy of every record at once (about 470 bytes each, plus their strings),
  // touched once and freed; a chunk's stay in the cache and their memory is reused.
  constexpr std::size_t chunk = 256;
  auto& w = *writer;
  int rc = run(w.begin);
  // However this ends (a failed step or commit, or a throw: out of memory), no transaction is
  // left open behind it: the next commit's BEGIN would fail, and every commit after it.
  struct rollback_if_open {
    writer_side& w;
    ~rollback_if_open() {
      if (!sqlite3_get_autocommit(w.db.get())) run(w.rollback);
    }
  } guard{w};
  std::vector<snapshot> snaps;
  snaps.reserve(std::min(chunk, batch.size()));
  for (std::size_t from = 0; rc == SQLITE_DONE && from < batch.size(); from += chunk) {
    const std::size_t to = std::min(batch.size(), from + chunk);
    snaps.clear();
    {
      std::lock_guard lock(mutex);
      for (std::size_t i = from; i < to; ++i)
        snaps.push_back(snapshot_of(*batch[i]));
    }
    for (auto& s : snaps) {
      if (s.how == row_write::whole) {
        rc = write_whole_row(s);
      } else {
        const bool with_state = s.how == row_write::progress_and_state;
        auto& update = with_state ? w.update_progress_and_state : w.update_progress;
        statement_use use(update);
        detail::bind_progress(update, s.rowid, s.progress, with_state, s.lines);
        rc = update.step();
      }
      if (rc != SQLITE_DONE) break;
      written.push_back(receipt_of(s));
    }
  }
  if (rc == SQLITE_DONE) rc = run(w.commit);
  if (rc == SQLITE_DONE) return {};
  const std::error_code ec = w.db.error_of(rc);  // read before the guard's rollback
  return ec ? ec : make_error_code(journal_errc::io);
}

std::size_t sqlite_journal::impl::purge(wall_time cutoff) {
  std::lock_guard write_lock(write_mutex);
  auto& w = *writer;
  const auto ms = detail::to_millis(cutoff);
  std::size_t purged = 0;
  int rc = run(w.begin);
  if (rc == SQLITE_DONE) {
    statement_use use(w.purge_intents);
    w.purge_intents.bind(1, ms);
    rc = w.purge_intents.step();
    purged = static_cast<std::size_t>(sqlite3_changes(w.db.get()));
  }
  if (rc == SQLITE_DONE) rc = run(w.commit);
  if (rc != SQLITE_DONE) {
    if (!sqlite3_get_autocommit(w.db.get())) run(w.rollback);
    return 0;
  }
  // Final records not yet committed that are past the cutoff go too, with their queued lines.
  std::lock_guard lock(mutex);
  for (auto it = records.begin(); it != records.end();) {
    const intent_record& r = it->second.record;
    if (r.is_open() || !r.finished_at || *r.finished_at >= cutoff) {
      ++it;
      continue;
    }
    if (it->second.queued) std::erase(dirty, &*it);
    it = records.erase(it);
  }
  return purged;
}

}  // namespace idem
