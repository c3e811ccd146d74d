#pragma once
// Internal: how an intent record and a timeline line become rows of the journal (and back).
// The SQL that names the columns lives beside the code that binds and reads them, so their
// order is written down once. Private to the idem library.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "idem/intent_store.hpp"
#include "store/sqlite/sqlite_connection.hpp"

namespace idem::detail {

/// The deciding answer's body is kept up to this many bytes in the file.
inline constexpr std::size_t max_stored_final_body = 64 * 1024;

/// Times are stored as integer milliseconds since the Unix epoch.
[[nodiscard]] std::int64_t to_millis(wall_time t) noexcept;
[[nodiscard]] wall_time from_millis(std::int64_t ms) noexcept;

// Statements over the `intents` table. Those that select rows select the columns read_intent
// reads; upsert_intent_sql takes the parameters bind_intent binds.
extern const char* const upsert_intent_sql;
extern const char* const select_intent_sql;        ///< ?1 = key
extern const char* const select_open_intents_sql;  ///< oldest first

// Statements over the `events` table, in the same way (bind_event, read_event).
extern const char* const insert_event_sql;
extern const char* const select_events_sql;  ///< ?1 = key; oldest first

/// Binds every parameter of upsert_intent_sql. `final_body` is cut to max_stored_final_body.
void bind_intent(sqlite_statement& s, const intent_record& r, std::uint64_t seq);
/// The record in the current row of a statement that selects the intent columns, and its
/// seq; nullopt if the row cannot be a record (a key or body that does not parse, an unknown
/// state name).
[[nodiscard]] std::optional<intent_record> read_intent(const sqlite_statement& s,
                                                       std::uint64_t& seq);

/// Binds every parameter of insert_event_sql.
void bind_event(sqlite_statement& s, std::uint64_t seq, const std::string& key,
                const timeline_entry& e);
/// The timeline line in the current row of select_events_sql, and its seq; nullopt for a line
/// of an unknown kind.
[[nodiscard]] std::optional<timeline_entry> read_event(const sqlite_statement& s,
                                                       std::uint64_t& seq);

}  // namespace idem::detail
