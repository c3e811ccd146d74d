// Reading the journal: memory first for what the writer has not committed yet, else the file
// through a connection of its own (WAL lets it read beside a commit in progress).
#include "store/sqlite/sqlite_journal_codec.hpp"
#include "store/sqlite/sqlite_journal_impl.hpp"

#include <algorithm>

namespace idem {

using detail::statement_use;

std::optional<sqlite_journal::impl::stored_record> sqlite_journal::impl::read_record(
    const std::string& key) const {
  std::lock_guard lock(read_mutex);
  return read_record_locked(key);
}

std::optional<sqlite_journal::impl::stored_record> sqlite_journal::impl::read_record_locked(
    const std::string& key) const {
  if (!reader.has_schema) return std::nullopt;
  statement_use use(reader.intent);
  reader.intent.bind_text(1, key);
  if (reader.intent.step() != SQLITE_ROW) return std::nullopt;
  std::uint64_t seq = 0;
  auto r = detail::read_intent(reader.intent, seq);
  if (!r) return std::nullopt;
  if (reader.recovers) detail::read_as_recovered(*r);
  return stored_record{std::move(*r), seq, detail::read_rowid(reader.intent),
                       detail::read_timeline_lines(reader.intent)};
}

std::optional<intent_record> sqlite_journal::find(const idempotency_key& key) const {
  if (d_->writer) {
    std::lock_guard lock(d_->mutex);
    const auto it = d_->records.find(key.str());
    if (it != d_->records.end()) return it->second.record;
  }
  // Not in memory: final and committed (or unknown), so the file has the latest state.
  auto stored = d_->read_record(key.str());
  if (!stored) return std::nullopt;
  return std::move(stored->record);
}

std::vector<intent_record> sqlite_journal::open_intents() const {
  std::vector<intent_record> out;
  if (d_->writer) {
    std::lock_guard lock(d_->mutex);
    out.reserve(d_->open.size());
    for (const auto& [seq, node] : d_->open)
      out.push_back(node->second.record);
    return out;
  }
  std::lock_guard lock(d_->read_mutex);
  if (!d_->reader.has_schema) return out;
  auto& s = d_->reader.open_intents;
  statement_use use(s);
  while (s.step() == SQLITE_ROW) {
    std::uint64_t seq = 0;
    if (auto r = detail::read_intent(s, seq)) {
      if (d_->reader.recovers) detail::read_as_recovered(*r);
      out.push_back(std::move(*r));
    }
  }
  return out;
}

std::vector<timeline_entry> sqlite_journal::timeline(const idempotency_key& key) const {
  // Queued lines first, then the file: a commit in between puts them in both (the row then has
  // more lines than the record counted), never in neither.
  std::string queued;
  std::uint64_t counted = 0;  // the row's lines when `queued` was taken
  {
    std::lock_guard lock(d_->mutex);
    const auto it = d_->records.find(key.str());
    if (it != d_->records.end()) {
      queued = it->second.lines;
      counted = it->second.file_lines;
    }
  }
  std::vector<timeline_entry> out;
  std::uint64_t in_file = 0;
  {
    std::lock_guard lock(d_->read_mutex);
    if (d_->reader.has_schema) {
      auto& s = d_->reader.timeline;
      statement_use use(s);
      s.bind_text(1, key.str());
      if (d_->reader.version >= 3) {
        if (s.step() == SQLITE_ROW) in_file = detail::read_timeline(s.column_text(0), out);
      } else {
        while (s.step() == SQLITE_ROW) {
          std::uint64_t seq = 0;
          if (auto e = detail::read_event(s, seq)) out.push_back(std::move(*e));
        }
      }
    }
  }
  if (queued.empty()) return out;
  std::vector<timeline_entry> pending;
  detail::read_timeline(queued, pending);
  // Those of the queued lines the file has (committed since they were taken) are skipped.
  const std::uint64_t have = in_file > counted ? in_file - counted : 0;
  for (std::size_t i = static_cast<std::size_t>(std::min<std::uint64_t>(have, pending.size()));
       i < pending.size(); ++i) {
    out.push_back(std::move(pending[i]));
  }
  return out;
}

journal_counts sqlite_journal::counts() const {
  journal_counts c;
  std::lock_guard lock(d_->read_mutex);
  if (!d_->reader.has_schema) return c;
  auto& s = d_->reader.counts;
  statement_use use(s);
  if (s.step() != SQLITE_ROW) return c;
  auto at = [&](int i) { return static_cast<std::uint64_t>(s.column_int(i)); };
  c.intents = at(0);
  c.succeeded = at(1);
  c.rejected = at(2);
  c.not_sent = at(3);
  c.unresolved = at(4);
  return c;
}

}  // namespace idem
