#include "store/sqlite/sqlite_journal_schema.hpp"

#include "store/sqlite/sqlite_journal_codec.hpp"
#include "store/sqlite/wal_write_batching.hpp"

#include "platform/file_facts.hpp"

#include <string_view>
#include <utility>
#include <vector>

namespace idem::detail {
namespace {

constexpr const char* schema_sql = R"sql(
CREATE TABLE intents (
  key               TEXT PRIMARY KEY NOT NULL,
  seq               INTEGER NOT NULL,  -- creation order of the open intents (resumed oldest first)
  method            TEXT NOT NULL,
  path              TEXT NOT NULL,     -- a planned intent's template until path_bound
  body              BLOB NOT NULL,     -- the exact bytes sent
  lookup_kind       TEXT NOT NULL,     -- the lookup as JSON, or "none" (older files: a preset name)
  business_id       TEXT NOT NULL,
  principal         TEXT NOT NULL,     -- SHA-256 of the credentials, never the secret
  created_at        INTEGER NOT NULL,  -- times: milliseconds since the Unix epoch
  first_attempt_at  INTEGER,
  finished_at       INTEGER,
  depends_on        TEXT,
  path_bound        INTEGER NOT NULL,
  attempts          INTEGER NOT NULL,
  attempts_finished INTEGER NOT NULL,
  last_class        TEXT,
  reached_server    INTEGER NOT NULL,
  state             TEXT NOT NULL,
  last_outcome      TEXT,
  final_status      INTEGER NOT NULL,
  final_body        BLOB NOT NULL,     -- at most 64 KiB
  error             TEXT NOT NULL,
  timeline          TEXT NOT NULL DEFAULT ''  -- one line per event (format 3; codec)
);
CREATE INDEX intents_open ON intents (seq) WHERE state = 'open';
CREATE INDEX intents_by_finish ON intents (finished_at) WHERE finished_at IS NOT NULL;
)sql";

// Format 2's own table, created in a new file and by the migration.
constexpr const char* state_table_sql =
    "CREATE TABLE journal_state (name TEXT PRIMARY KEY NOT NULL, value INTEGER NOT NULL);"
    "INSERT INTO journal_state VALUES ('clean_shutdown', 0);";

// Format 1 to 2, in one transaction: each line gets its intent's seq, the key index goes.
constexpr const char* migrate_1_to_2_sql =
    "ALTER TABLE events ADD COLUMN intent INTEGER NOT NULL DEFAULT 0;"
    "UPDATE events SET intent = coalesce((SELECT seq FROM intents WHERE intents.key = "
    "events.key), 0);"
    "DROP INDEX events_by_key;"
    "CREATE INDEX events_by_intent ON events (intent, seq);";

// Open intents, oldest first, indexed alone: an intent that ends leaves the index, and a final
// one costs it nothing. Until issue 47 an index over every state (intents_by_state) took an
// insert for each intent that ended: about 9,600 instructions an intent of a journaled load,
// with the delete. At a writer's open of an older file, in its first transaction; a format-3
// idem before it reads and writes a file with either index (the queries are the same), so the
// format does not change.
constexpr const char* open_index_sql =
    "DROP INDEX IF EXISTS intents_by_state;"
    "CREATE INDEX IF NOT EXISTS intents_open ON intents (seq) WHERE state = 'open';";

// Format 2 to 3, the SQL half (move_timelines_into_rows does the rest).
constexpr const char* add_timeline_column_sql =
    "ALTER TABLE intents ADD COLUMN timeline TEXT NOT NULL DEFAULT '';";

// After an unclean close: an open intent whose path is bound in the file, which says nothing
// of it may have executed and no submission of it ended, may have sent an attempt whose start
// was never committed (the journal does not wait for the start of such an intent:
// sqlite_journal.cpp, `start_needs_no_wait`). It becomes maybe sent, as if that start had been
// committed, first sent no later than it was created (the key-retention rule then looks up
// early, never late), with a timeline line that says why, timed at the recovery.
std::string recover_unrecorded_starts_sql(std::int64_t now_ms) {
  const std::string tab = "' || char(9) || '";
  return "UPDATE intents SET attempts = attempts + 1, "
         "first_attempt_at = coalesce(first_attempt_at, created_at), "
         "timeline = timeline || '" +
         std::to_string(now_ms) + tab + "attempt_started" + tab + "' || (attempts + 1) || '" + tab +
         tab + "0" + tab + tab + "0" + tab + std::string(unrecorded_start_detail) +
         "' || char(10) "
         "WHERE state = 'open' AND path_bound AND last_outcome IS NULL AND NOT reached_server AND "
         "attempts = attempts_finished;";
}

constexpr std::string_view sqlite_magic{"SQLite format 3\0", 16};
constexpr std::size_t sqlite_header_size = 100;

enum class file_kind { missing, empty, sqlite };

// Looks at the file before SQLite does: a file that is not an SQLite database at all, or one
// cut inside its header, is refused without handing it to SQLite.
std::optional<file_kind> inspect_file(const std::string& path, std::error_code& ec,
                                      std::string& detail) {
  std::error_code sys;
  const file_facts st = facts_of_file(path, sys);
  if (sys) {
    if (sys == std::errc::no_such_file_or_directory) return file_kind::missing;
    ec = sys == std::errc::permission_denied ? journal_errc::read_only : journal_errc::io;
    detail = "cannot read " + path + ": " + sys.message();
    return std::nullopt;
  }
  if (!st.regular) {
    ec = journal_errc::not_a_journal;
    detail = path + " is not a regular file";
    return std::nullopt;
  }
  if (st.size == 0) return file_kind::empty;
  char header[sqlite_header_size];
  const std::size_t n = read_file_start(path, header, sys);
  if (sys) {
    ec = journal_errc::io;
    detail = "cannot read " + path + ": " + sys.message();
    return std::nullopt;
  }
  const std::string_view got(header, n);
  if (got.substr(0, sqlite_magic.size()) != sqlite_magic.substr(0, got.size())) {
    ec = journal_errc::not_a_journal;
    detail = path + " is not an idem journal (not an SQLite database)";
    return std::nullopt;
  }
  if (got.size() < sqlite_header_size) {
    ec = journal_errc::corrupt;
    detail = path + " is truncated (" + std::to_string(got.size()) +
             " bytes, shorter than an SQLite header)";
    return std::nullopt;
  }
  // Cut short since its last write: the header's page count (valid when its change counter
  // matches the one it was written with) times the page size exceeds the file. Only without a
  // WAL to replay: a checkpoint writes page 1 (the new count) before the pages that extend the
  // file, so while one runs, or after a crash in one, the file is legitimately shorter and
  // SQLite completes it from the WAL. A clean close (the case that skips quick_check) leaves
  // no WAL.
  const auto u32 = [&](std::size_t at) {
    const auto* b = reinterpret_cast<const unsigned char*>(header) + at;
    return std::uint32_t{b[0]} << 24 | std::uint32_t{b[1]} << 16 | std::uint32_t{b[2]} << 8 |
           std::uint32_t{b[3]};
  };
  const std::uint32_t raw_page_size = std::uint32_t{static_cast<unsigned char>(header[16])} << 8 |
                                      static_cast<unsigned char>(header[17]);
  const std::uint64_t page_size = raw_page_size == 1 ? 65536 : raw_page_size;
  const bool wal_to_replay = facts_of_file(path + "-wal", sys).size > 0;
  const std::uint64_t pages = u32(24) == u32(92) && !wal_to_replay ? u32(28) : 0;
  if (pages * page_size > st.size) {
    ec = journal_errc::corrupt;
    detail = path + " is truncated (" + std::to_string(st.size) + " bytes; its header counts " +
             std::to_string(pages) + " pages of " + std::to_string(page_size) + ")";
    return std::nullopt;
  }
  return file_kind::sqlite;
}

// Fills ec/detail from a failed SQLite call while checking `path`.
void fail(const sqlite_connection& db, int rc, const std::string& path, std::error_code& ec,
          std::string& detail) {
  ec = db.error_of(rc);
  if (ec == journal_errc::corrupt)
    detail = path + " is damaged or truncated: " + db.message();
  else
    detail = "cannot read " + path + ": " + db.message();
}

// The first `n` lines of a report that can name every page of the file.
std::string first_lines(std::string text, int n) {
  std::size_t at = 0;
  for (int i = 0; i < n && at != std::string::npos; ++i) {
    at = text.find('\n', at);
    if (at != std::string::npos && i + 1 < n) text[at++] = ' ';
  }
  if (at != std::string::npos) text = text.substr(0, at) + " ...";
  return text;
}

// The first line PRAGMA quick_check reports ("ok" for a sound file).
std::optional<std::string> quick_check(sqlite_connection& db, int& rc) {
  int prepare_rc = SQLITE_OK;
  sqlite_statement check(db.get(), "PRAGMA quick_check", prepare_rc);
  rc = prepare_rc;
  if (rc != SQLITE_OK) return std::nullopt;
  rc = check.step();
  if (rc != SQLITE_ROW) return std::nullopt;
  rc = SQLITE_OK;
  return check.column_text(0);
}

// Whether the last writer closed the file cleanly (format 2's mark; an older file never was).
bool closed_cleanly(sqlite_connection& db, std::int64_t version) {
  if (version < 2) return false;
  int rc = SQLITE_OK;
  sqlite_statement mark(db.get(), "SELECT value FROM journal_state WHERE name = 'clean_shutdown'",
                        rc);
  return rc == SQLITE_OK && mark.step() == SQLITE_ROW && mark.column_int(0) == 1;
}

// Checks an existing database is an idem journal this code can read, and sound (PRAGMA
// quick_check, unless the last writer closed it cleanly). Reads only.
bool check_journal(sqlite_connection& db, const std::string& path, bool& is_new,
                   std::int64_t& file_version, std::error_code& ec, std::string& detail) {
  int rc = SQLITE_OK;
  const auto app_id = db.pragma_int("application_id", rc);
  const auto version = app_id ? db.pragma_int("user_version", rc) : std::nullopt;
  std::optional<std::int64_t> objects;
  if (version) {
    sqlite_statement count(db.get(), "SELECT count(*) FROM sqlite_schema", rc);
    if (rc == SQLITE_OK) {
      rc = count.step();
      if (rc == SQLITE_ROW) {
        objects = count.column_int(0);
        rc = SQLITE_OK;
      }
    }
  }
  if (!objects) {
    fail(db, rc, path, ec, detail);
    return false;
  }
  is_new = *app_id == 0 && *version == 0 && *objects == 0;
  if (is_new) return true;
  if (*app_id != journal_application_id) {
    ec = journal_errc::not_a_journal;
    detail = path + " is an SQLite database of another application (application_id " +
             std::to_string(*app_id) + ")";
    return false;
  }
  if (*version < 1 || *version > journal_schema_version) {
    ec = journal_errc::not_a_journal;
    detail = path + " has journal format " + std::to_string(*version) + "; this idem reads " +
             std::to_string(journal_schema_version) +
             (*version > journal_schema_version ? " (written by a newer idem)" : "");
    return false;
  }
  file_version = *version;
  if (closed_cleanly(db, file_version)) return true;
  const auto verdict = quick_check(db, rc);
  if (!verdict) {
    fail(db, rc, path, ec, detail);
    return false;
  }
  if (*verdict != "ok") {
    ec = journal_errc::corrupt;
    detail = path + " is damaged (PRAGMA quick_check: " + first_lines(*verdict, 3) + ")";
    return false;
  }
  return true;
}

// Format 2 to 3, inside the upgrade's transaction: each intent's lines, oldest first, become
// its row's timeline (the codec's text), then the events table goes. Lines of no intent (left
// by a purge of format 1) and lines of a kind this code does not know go with it: no read
// ever returned them.
int move_timelines_into_rows(sqlite_connection& db) {
  int rc = SQLITE_OK;
  sqlite_statement intents(db.get(), "SELECT rowid, seq FROM intents", rc);
  if (rc != SQLITE_OK) return rc;
  sqlite_statement lines(db.get(),
                         "SELECT seq, key, at, kind, attempt, class, status, request_id, "
                         "duration_ms, detail FROM events WHERE intent = ?1 ORDER BY seq",
                         rc);
  if (rc != SQLITE_OK) return rc;
  sqlite_statement update(db.get(), "UPDATE intents SET timeline = ?2 WHERE rowid = ?1", rc);
  if (rc != SQLITE_OK) return rc;
  // Read first, written after: an UPDATE beside an open SELECT over the same table could see
  // its own rows again.
  std::vector<std::pair<std::int64_t, std::int64_t>> rows;
  while ((rc = intents.step()) == SQLITE_ROW)
    rows.emplace_back(intents.column_int(0), intents.column_int(1));
  if (rc != SQLITE_DONE) return rc;
  std::string text;
  for (const auto& [rowid, seq] : rows) {
    text.clear();
    {
      statement_use use(lines);
      lines.bind(1, seq);
      while ((rc = lines.step()) == SQLITE_ROW) {
        std::uint64_t line_seq = 0;
        if (auto e = read_event(lines, line_seq)) append_timeline_line(text, *e);
      }
      if (rc != SQLITE_DONE) return rc;
    }
    if (text.empty()) continue;
    statement_use use(update);
    update.bind(1, rowid);
    update.bind_text_ref(2, text);
    if ((rc = update.step()) != SQLITE_DONE) return rc;
  }
  return db.exec("DROP TABLE events");
}

bool configure_writer(sqlite_connection& db, const journal_options& options, bool is_new,
                      std::int64_t file_version, std::error_code& ec, std::string& detail) {
  int rc = SQLITE_OK;
  sqlite_statement wal(db.get(), "PRAGMA journal_mode = WAL", rc);
  if (rc == SQLITE_OK) rc = wal.step();
  if (rc == SQLITE_ROW && wal.column_text(0) != "wal") {
    ec = journal_errc::io;
    detail = "cannot put " + options.path + " in WAL mode";
    return false;
  }
  if (rc != SQLITE_ROW) {
    fail(db, rc, options.path, ec, detail);
    return false;
  }
  wal.reset();
  std::string pragmas = options.durability == journal_durability::full
                            ? "PRAGMA synchronous = FULL;"
                            : "PRAGMA synchronous = NORMAL;";
  if (options.max_pages)
    pragmas += "PRAGMA max_page_count = " + std::to_string(*options.max_pages) + ";";
  rc = db.exec(pragmas.c_str());
  if (rc != SQLITE_OK) {
    fail(db, rc, options.path, ec, detail);
    return false;
  }
  // The schema (a new file) or the migration to this format, the recovery of an unclean
  // close, then the clean-shutdown mark cleared: one durable transaction before anything else
  // is written.
  const bool was_clean = is_new || closed_cleanly(db, file_version);
  std::string work = "BEGIN IMMEDIATE;";
  if (is_new) {
    work += std::string(schema_sql) + state_table_sql +
            "PRAGMA application_id = " + std::to_string(journal_application_id) + ";";
  } else if (file_version == 1) {
    work += std::string(migrate_1_to_2_sql) + state_table_sql;
  }
  if (!is_new && file_version < 3) work += add_timeline_column_sql;
  rc = db.exec(work.c_str());
  if (rc == SQLITE_OK && !is_new && file_version < 3) rc = move_timelines_into_rows(db);
  work.clear();
  if (!is_new) work += open_index_sql;
  if (!was_clean) work += recover_unrecorded_starts_sql(to_millis(options.wall_clock()));
  if (is_new || file_version != journal_schema_version)
    work += "PRAGMA user_version = " + std::to_string(journal_schema_version) + ";";
  work += "UPDATE journal_state SET value = 0 WHERE name = 'clean_shutdown'; COMMIT;";
  if (rc == SQLITE_OK) rc = db.exec(work.c_str());
  if (rc != SQLITE_OK) {
    fail(db, rc, options.path, ec, detail);
    const std::string what = is_new                                   ? "create the journal "
                             : file_version != journal_schema_version ? "upgrade the journal "
                                                                      : "open the journal ";
    detail = "cannot " + what + options.path + ": " + db.message();
    if (!sqlite3_get_autocommit(db.get())) db.exec("ROLLBACK");
    return false;
  }
  return true;
}

}  // namespace

std::optional<journal_database> open_journal_database(const journal_options& options,
                                                      std::error_code& ec, std::string& detail) {
  const auto kind = inspect_file(options.path, ec, detail);
  if (!kind) return std::nullopt;
  if (*kind == file_kind::missing && options.read_only) {
    ec = journal_errc::not_a_journal;
    detail = "there is no journal at " + options.path;
    return std::nullopt;
  }
  const int flags =
      SQLITE_OPEN_NOMUTEX |
      (options.read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
  int rc = SQLITE_OK;
  // A writer with full durability writes each commit's WAL frames with one system call
  // (wal_write_batching.hpp).
  const char* vfs = !options.read_only && options.durability == journal_durability::full
                        ? wal_write_batching_vfs()
                        : nullptr;
  journal_database j{sqlite_connection(options.path, flags, rc, vfs)};
  if (rc != SQLITE_OK) {
    fail(j.db, rc, options.path, ec, detail);
    detail = "cannot open " + options.path + ": " + j.db.message();
    return std::nullopt;
  }
  // Until the file is known to be a sound journal, closing must not checkpoint a WAL into it.
  sqlite3_db_config(j.db.get(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
  if (!options.read_only && sqlite3_db_readonly(j.db.get(), "main") == 1) {
    ec = journal_errc::read_only;
    detail = options.path + " is write-protected (SQLite could open it only read-only)";
    return std::nullopt;
  }
  sqlite3_busy_timeout(j.db.get(), 5000);
  bool is_new = false;
  std::int64_t file_version = journal_schema_version;
  if (!check_journal(j.db, options.path, is_new, file_version, ec, detail)) return std::nullopt;
  if (options.read_only) {
    j.has_schema = !is_new;
    j.version = file_version;
    j.closed_cleanly = is_new || closed_cleanly(j.db, file_version);
  } else if (!configure_writer(j.db, options, is_new, file_version, ec, detail)) {
    return std::nullopt;
  }
  sqlite3_db_config(j.db.get(), SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 0, nullptr);
  ec = {};
  return j;
}

const char* select_timeline_sql_for(std::int64_t version) {
  if (version < 2) return select_events_by_key_sql;
  return version < 3 ? select_events_sql : select_timeline_sql;
}

void mark_clean_shutdown(sqlite_connection& db) noexcept {
  db.exec("UPDATE journal_state SET value = 1 WHERE name = 'clean_shutdown'");
}

std::optional<sqlite_connection> open_journal_reader(const std::string& path, std::error_code& ec,
                                                     std::string& detail) {
  int rc = SQLITE_OK;
  sqlite_connection db(path, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, rc);
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db.get(), 5000);
    rc = db.exec("PRAGMA query_only = 1");
  }
  if (rc != SQLITE_OK) {
    ec = db.error_of(rc);
    detail = "cannot open a reader on " + path + ": " + db.message();
    return std::nullopt;
  }
  return db;
}

}  // namespace idem::detail
