#pragma once
// The named counters behind /_mock/stats that are counted as things happen (the rest of the stats
// is counted from the tables). Two kinds, so that a request does not pay a transaction or a page
// write for counting traffic, while what counts committed facts stays exact after a kill -9:
// - traffic (`increment`: requests, replays, key_mismatches, in_progress_conflicts,
//   faults_injected): counted in memory and written to the table `counters` by `persist()`, which
//   the server calls periodically, before answering a stats read and on shutdown. A SIGKILL loses
//   what was counted since the last persist, never what a stats read has shown.
// - committed facts (`increment_in_transaction`: business_id_conflicts,
//   invalid_state_transitions, records_purged, abandoned_settled): an UPSERT in the caller's
//   transaction, so they commit or roll back with what they count.

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "mock_server/storage/sqlite.hpp"

namespace idem::mock {

/// Not thread-safe; uses the caller's connection.
class counters {
 public:
  explicit counters(database& db) : db_(db) {}
  /// Adds `by` in memory (traffic); written by the next persist().
  void increment(std::string_view name, std::int64_t by = 1);
  /// UPSERT value = value + by inside the caller's transaction (committed facts). Throws
  /// std::logic_error when no transaction is open: the count would commit apart from its fact.
  void increment_in_transaction(std::string_view name, std::int64_t by = 1);
  /// Stored plus not yet persisted; 0 for a counter never incremented. Outside a transaction
  /// from memory (O(1)): the table is read once (load(), or the first call), then every
  /// increment follows, a committed fact once its transaction commits. So one object per
  /// database: another's persist() is not seen. Inside a transaction, read from the table.
  [[nodiscard]] std::int64_t get(std::string_view name);
  /// Every counter with its value, as get() reads it.
  [[nodiscard]] std::map<std::string, std::int64_t> all();
  /// Reads the table again (at start-up, after it was wiped), adding what is not persisted yet.
  void load();
  /// Writes the in-memory counts in one transaction of its own; they are forgotten only once it
  /// committed, so a failure loses nothing. Must not be called inside a transaction.
  void persist();
  /// True while some count lives only in memory.
  [[nodiscard]] bool has_pending() const noexcept { return !pending_.empty(); }
  /// Forgets the counts not persisted yet (POST /_mock/reset, which then load()s again).
  void discard_pending() noexcept { pending_.clear(); }

 private:
  void upsert(std::string_view name, std::int64_t by);

  [[nodiscard]] std::map<std::string, std::int64_t, std::less<>> read_table();
  [[nodiscard]] std::map<std::string, std::int64_t, std::less<>> totals();

  database& db_;
  std::map<std::string, std::int64_t, std::less<>> pending_;
  /// Stored plus pending, by name; empty until loaded.
  std::optional<std::map<std::string, std::int64_t, std::less<>>> totals_;
};

}  // namespace idem::mock
