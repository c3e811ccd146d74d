#pragma once
// Internal: how an intent record and a timeline line become rows of the journal (and back).
// The SQL that names the columns lives beside the code that binds and reads them, so their
// order is written down once. Private to the idem library.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "idem/intent_store.hpp"
#include "store/sqlite/sqlite_connection.hpp"

namespace idem::detail {

/// The deciding answer's body is kept up to this many bytes in the file.
inline constexpr std::size_t max_stored_final_body = 64 * 1024;

/// Times are stored as integer milliseconds since the Unix epoch.
[[nodiscard]] std::int64_t to_millis(wall_time t) noexcept;
[[nodiscard]] wall_time from_millis(std::int64_t ms) noexcept;

// Statements over the `intents` table. Those that select rows select the columns read_intent
// reads, then the row's rowid (read_rowid) and the number of its timeline's lines
// (read_timeline_lines); insert_intent_sql and upsert_intent_sql take the parameters
// bind_intent binds, then the timeline's lines (?23: the whole of a new row's, appended to an
// existing row's). A row is found by its rowid once written (the updates below):
// the key's index is walked once per intent, when it is read back or inserted.
extern const char* const insert_intent_sql;  ///< a new row only (no conflict clause)
extern const char* const upsert_intent_sql;
extern const char* const select_intent_sql;        ///< ?1 = key
extern const char* const select_open_intents_sql;  ///< oldest first
/// The same two for a file of `version` (formats 1 and 2: no timeline in the row, 0 lines).
[[nodiscard]] const char* select_intent_sql_for(std::int64_t version);
[[nodiscard]] const char* select_open_intents_sql_for(std::int64_t version);

// The timeline of a file of format 3: a column of the intent's row (timeline_text).
extern const char* const select_timeline_sql;  ///< ?1 = key

// Statements over the `events` table of a file of format 1 or 2 (read_event): what a read-only
// open reads, and what the upgrade to format 3 moves into the rows.
extern const char* const select_events_sql;  ///< ?1 = key; oldest first
/// The same for a file of format 1 (read-only opens leave it as it is).
extern const char* const select_events_by_key_sql;

/// How a row stores an intent's lookup (the business ID aside), remembered for the last
/// lookup shape written: the intents of a plan share one shape, and working the text out
/// (the presets compared, or the JSON written) took each row several allocations.
class lookup_text_memo {
 public:
  [[nodiscard]] const std::string& text_of(const intent& i);

 private:
  std::optional<intent> held_;  // keeps the shape whose address is compared alive
  std::string text_;
};

/// Binds every parameter of upsert_intent_sql. `final_body` is cut to max_stored_final_body.
void bind_intent(sqlite_statement& s, const intent_record& r, std::uint64_t seq,
                 lookup_text_memo& lookups);
/// The record in the current row of a statement that selects the intent columns, and its
/// seq; nullopt if the row cannot be a record (a key or body that does not parse, an unknown
/// state name).
[[nodiscard]] std::optional<intent_record> read_intent(const sqlite_statement& s,
                                                       std::uint64_t& seq);
/// The rowid of the current row of a statement that selects the intent columns.
[[nodiscard]] std::int64_t read_rowid(const sqlite_statement& s);
/// The number of timeline lines of that row.
[[nodiscard]] std::uint64_t read_timeline_lines(const sqlite_statement& s);

/// The columns of an intent's row that its events change once it is written down: everything
/// but the intent itself (key, method, path, body, lookup, principal, creation, dependency).
/// Updating only these leaves the row's indexes alone unless the state changes.
struct intent_progress {
  std::optional<wall_time> first_attempt_at;
  std::optional<wall_time> finished_at;
  std::uint32_t attempts = 0;
  std::uint32_t attempts_finished = 0;
  std::optional<attempt_class> last_class;
  bool reached_server = false;
  intent_state state = intent_state::open;
  std::optional<outcome_kind> last_outcome;
  int final_status = 0;
  std::string final_body;  ///< cut to max_stored_final_body
  std::string error;
};
[[nodiscard]] intent_progress progress_of(const intent_record& r);

/// ?1 = rowid: the progress columns but state and finished_at (which indexes cover), and ?13
/// appended to the timeline.
extern const char* const update_progress_sql;
/// ?1 = rowid: the progress columns, state and finished_at included; ?13 as above.
extern const char* const update_progress_and_state_sql;
/// Binds the parameters of either update statement; `lines` is appended to the timeline.
void bind_progress(sqlite_statement& s, std::int64_t rowid, const intent_progress& p,
                   bool with_state, std::string_view lines);

/// Appends a timeline line as the row keeps it (format 3): its fields separated by tabs (time
/// in ms, kind, attempt, class or nothing, status, request id, duration in ms, detail), ended by
/// a newline; a backslash, tab or newline in the request id or the detail is escaped
/// (`\\`, `\t`, `\n`). Plain text, as the rest of the file: it reads in the sqlite3 shell.
void append_timeline_line(std::string& out, const timeline_entry& e);
/// The detail of the attempt_started line that the recovery of an unclean close adds to an
/// intent whose last attempt's start may have gone uncommitted (sqlite_journal_schema.cpp).
/// Written into SQL as it is: no quote, tab, newline or backslash.
inline constexpr std::string_view unrecorded_start_detail =
    "recovered: the process ended before this start was committed; it may have left";
/// What a writer's open after an unclean close makes of `r` (recover_unrecorded_starts_sql):
/// an open intent, its path bound, with nothing maybe sent and no submission ended gets one
/// attempt more, first sent no later than created. For a read-only reader of such a file.
void read_as_recovered(intent_record& r) noexcept;
/// Appends to `out` the lines of a row's timeline, oldest first; a line that does not read
/// back (an unknown kind, damage) is skipped. Returns how many lines the text holds, read back
/// or not (how a reader tells which of the lines still queued in memory the row already has).
std::size_t read_timeline(std::string_view text, std::vector<timeline_entry>& out);

/// The timeline line in the current row of select_events_sql, and its seq; nullopt for a line
/// of an unknown kind.
[[nodiscard]] std::optional<timeline_entry> read_event(const sqlite_statement& s,
                                                       std::uint64_t& seq);

}  // namespace idem::detail
