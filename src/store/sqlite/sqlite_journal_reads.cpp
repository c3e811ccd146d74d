// Reading the journal: memory first for what the writer has not committed yet, else the file
// through a connection of its own (WAL lets it read beside a commit in progress).
#include "store/sqlite/sqlite_journal_codec.hpp"
#include "store/sqlite/sqlite_journal_impl.hpp"

namespace idem {

using detail::statement_use;

std::optional<sqlite_journal::impl::stored_record> sqlite_journal::impl::read_record(
    const std::string& key) const {
  std::lock_guard lock(read_mutex);
  if (!reader.has_schema) return std::nullopt;
  statement_use use(reader.intent);
  reader.intent.bind_text(1, key);
  if (reader.intent.step() != SQLITE_ROW) return std::nullopt;
  std::uint64_t seq = 0;
  auto r = detail::read_intent(reader.intent, seq);
  if (!r) return std::nullopt;
  return stored_record{std::move(*r), seq, detail::read_rowid(reader.intent)};
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
    for (const auto& [seq, key] : d_->open)
      out.push_back(d_->records.at(key).record);
    return out;
  }
  std::lock_guard lock(d_->read_mutex);
  if (!d_->reader.has_schema) return out;
  auto& s = d_->reader.open_intents;
  statement_use use(s);
  while (s.step() == SQLITE_ROW) {
    std::uint64_t seq = 0;
    if (auto r = detail::read_intent(s, seq)) out.push_back(std::move(*r));
  }
  return out;
}

std::vector<timeline_entry> sqlite_journal::timeline(const idempotency_key& key) const {
  // Queued lines first, then the file: a batch committed in between is in both (told apart by
  // seq), never in neither.
  std::vector<impl::line> queued;
  {
    std::lock_guard lock(d_->mutex);
    for (const auto& l : d_->lines)
      if (l.key == key.str()) queued.push_back(l);
  }
  std::vector<timeline_entry> out;
  std::uint64_t last_seq = 0;
  {
    std::lock_guard lock(d_->read_mutex);
    if (d_->reader.has_schema) {
      auto& s = d_->reader.events;
      statement_use use(s);
      s.bind_text(1, key.str());
      while (s.step() == SQLITE_ROW) {
        std::uint64_t seq = 0;
        if (auto e = detail::read_event(s, seq)) {
          out.push_back(std::move(*e));
          last_seq = std::max(last_seq, seq);
        }
      }
    }
  }
  for (auto& l : queued)
    if (l.seq > last_seq) out.push_back(std::move(l.entry));
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
