// The journal's file format across versions and closes (issue 47): files of the first format
// (timeline lines in a table of their own, indexed by key) and of the second (that table
// indexed by the intent) are read as they are by a read-only open and brought to the third
// (each timeline a column of its intent's row) by a writer's open, every line intact; and the
// clean-shutdown mark that spares an open the full check is set only by a clean close.

#include <sqlite3.h>

#include "tests/idem/support/sqlite_journal_fixture.hpp"

namespace idem::test::journal {
namespace {

// A timeline line as an idem of format 1 or 2 wrote it in its events table.
struct old_line {
  std::int64_t seq;  // over all intents
  std::string key;
  std::int64_t at_ms;
  std::string kind;
  int attempt;
  std::string cls;  // "" for NULL
  int status;
  std::string request_id;
  int duration_ms;
  std::string detail;
};

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (char c : text) {
    out += c;
    if (c == '\'') out += '\'';
  }
  return out + "'";
}

std::string line_text(const timeline_entry& e) {
  return std::to_string(
             std::chrono::duration_cast<std::chrono::milliseconds>(e.at.time_since_epoch())
                 .count()) +
         "|" + std::string(to_string(e.what)) + "|" + std::to_string(e.attempt) + "|" +
         (e.cls ? std::string(to_string(*e.cls)) : "") + "|" + std::to_string(e.status) + "|" +
         e.request_id + "|" + std::to_string(e.duration.count()) + "|" + e.detail;
}

std::string line_text(const old_line& l) {
  return std::to_string(l.at_ms) + "|" + l.kind + "|" + std::to_string(l.attempt) + "|" + l.cls +
         "|" + std::to_string(l.status) + "|" + l.request_id + "|" + std::to_string(l.duration_ms) +
         "|" + l.detail;
}

std::vector<std::string> keys_of_open(const sqlite_journal& j) {
  std::vector<std::string> out;
  for (const auto& r : j.open_intents())
    out.push_back(r.what.key().str());
  return out;
}

std::vector<std::string> texts(const std::vector<timeline_entry>& got) {
  std::vector<std::string> out;
  for (const auto& e : got)
    out.push_back(line_text(e));
  return out;
}

std::vector<std::string> texts_of(const std::vector<old_line>& lines, const std::string& key) {
  std::vector<std::string> out;
  for (const auto& l : lines)
    if (l.key == key) out.push_back(line_text(l));
  return out;
}

class sqlite_journal_format_test : public journal_fixture {
 protected:
  std::int64_t clean_mark() {
    return query_int(path(), "SELECT value FROM journal_state WHERE name = 'clean_shutdown'");
  }
  // Two intents, closed: `a` succeeded, `b` still open.
  void write_two(const intent& a, const intent& b) {
    auto j = open();
    ASSERT_TRUE(j);
    for (const auto* what : {&a, &b}) {
      ASSERT_FALSE(write_durable(*j, created(*what)));
      ASSERT_FALSE(write_durable(*j, started(*what, 1, t0 + 1s)));
    }
    ASSERT_FALSE(write_durable(*j, finished(a, 1, attempt_class::succeeded, 201, t0 + 2s)));
    ASSERT_FALSE(write_durable(*j, reported(a, outcome_kind::succeeded, 201, "{}", t0 + 2s)));
  }
  // The closed file as an idem of format 2 wrote it: the rows' timelines gone, `lines` in an
  // events table indexed by their intent's seq.
  void make_format_2(const std::vector<old_line>& lines) {
    std::string sql =
        "CREATE TABLE events (seq INTEGER PRIMARY KEY, key TEXT NOT NULL, at INTEGER NOT NULL, "
        "kind TEXT NOT NULL, attempt INTEGER NOT NULL, class TEXT, status INTEGER NOT NULL, "
        "request_id TEXT NOT NULL, duration_ms INTEGER NOT NULL, detail TEXT NOT NULL, "
        "intent INTEGER NOT NULL DEFAULT 0);"
        "CREATE INDEX events_by_intent ON events (intent, seq);";
    for (const auto& l : lines) {
      sql += "INSERT INTO events VALUES (" + std::to_string(l.seq) + ", " + quoted(l.key) + ", " +
             std::to_string(l.at_ms) + ", " + quoted(l.kind) + ", " + std::to_string(l.attempt) +
             ", " + (l.cls.empty() ? "NULL" : quoted(l.cls)) + ", " + std::to_string(l.status) +
             ", " + quoted(l.request_id) + ", " + std::to_string(l.duration_ms) + ", " +
             quoted(l.detail) + ", coalesce((SELECT seq FROM intents WHERE key = " + quoted(l.key) +
             "), 0));";
    }
    sql += "ALTER TABLE intents DROP COLUMN timeline; PRAGMA user_version = 2;";
    exec_sql(path(), sql);
  }
  // Then as one of format 1 wrote it (before issue 47): indexed by key, no journal_state.
  void make_format_1() {
    exec_sql(path(),
             "DROP INDEX events_by_intent; ALTER TABLE events DROP COLUMN intent;"
             "CREATE INDEX events_by_key ON events (key, seq); DROP TABLE journal_state;"
             "PRAGMA user_version = 1;");
  }
  // Lines of two intents, interleaved as they happened; text fields with the characters the
  // third format escapes, and a line of no intent.
  std::vector<old_line> old_lines(const intent& a, const intent& b) {
    const std::string ka = a.key().str();
    const std::string kb = b.key().str();
    const std::int64_t t = 1'800'000'000'000;
    return {
        {1, ka, t, "created", 0, "", 0, "", 0, "POST /v1/orders"},
        {2, kb, t, "created", 0, "", 0, "", 0, "POST /v1/orders"},
        {3, ka, t + 1000, "attempt_started", 1, "", 0, "", 0, ""},
        {4, kb, t + 1000, "attempt_started", 1, "", 0, "", 0, ""},
        {5, ka, t + 2000, "attempt_finished", 1, "succeeded", 201, "req\t1\\x", 42,
         "line one\nline two"},
        {6, "no-such-intent", t + 2000, "waited", 0, "", 0, "", 500, ""},
        {7, ka, t + 2000, "outcome", 0, "", 201, "", 0, "succeeded"},
    };
  }
  void expect_timelines(const std::vector<old_line>& lines, const intent& a, const intent& b,
                        sqlite_journal& j) {
    EXPECT_EQ(texts(j.timeline(a.key())), texts_of(lines, a.key().str()));
    EXPECT_EQ(texts(j.timeline(b.key())), texts_of(lines, b.key().str()));
  }
  void expect_read_as_it_is(const std::vector<old_line>& lines, const intent& a, const intent& b,
                            std::int64_t format) {
    {
      auto o = options();
      o.read_only = true;
      auto j = open(o);
      ASSERT_TRUE(j);
      expect_timelines(lines, a, b, *j);
      EXPECT_TRUE(j->find(a.key()));
    }
    EXPECT_EQ(query_int(path(), "PRAGMA user_version"), format)
        << "a read-only open changed the file";
  }
  void expect_upgraded(const std::vector<old_line>& lines, const intent& a, const intent& b) {
    auto j = open();
    ASSERT_TRUE(j);
    EXPECT_EQ(query_int(path(), "PRAGMA user_version"), 3);
    EXPECT_EQ(query_int(path(), "SELECT count(*) FROM sqlite_schema WHERE name LIKE 'events%'"), 0);
    expect_timelines(lines, a, b, *j);
    // The upgraded rows go on: b's new lines follow its old ones.
    ASSERT_FALSE(write_durable(*j, finished(b, 1, attempt_class::succeeded, 201, t0 + 3s)));
    ASSERT_FALSE(write_durable(*j, reported(b, outcome_kind::succeeded, 201, "{}", t0 + 3s)));
    const auto got = j->timeline(b.key());
    ASSERT_EQ(got.size(), 4u);
    EXPECT_EQ(got[1].what, timeline_entry::kind::attempt_started);
    EXPECT_EQ(got[2].request_id, "req-1");
    EXPECT_EQ(j->counts().succeeded, 2u);
    EXPECT_EQ(j->purge_final_before(t0 + 1h), 2u);
    EXPECT_EQ(query_int(path(), "SELECT count(*) FROM intents"), 0);
  }
  // Two intents written, the file taken back to `format`, read as it is, then upgraded.
  void read_and_upgrade(std::int64_t format) {
    const auto a = orders::create(sample_order("f-a" + std::to_string(format)));
    const auto b = orders::create(sample_order("f-b" + std::to_string(format)));
    write_two(a, b);
    const auto lines = old_lines(a, b);
    make_format_2(lines);
    if (format == 1) make_format_1();
    expect_read_as_it_is(lines, a, b, format);
    expect_upgraded(lines, a, b);
  }
};

TEST_F(sqlite_journal_format_test, AFileOfTheSecondFormatIsReadAsItIsAndUpgradedByAWriter) {
  read_and_upgrade(2);
}

TEST_F(sqlite_journal_format_test, AFileOfTheFirstFormatIsReadAsItIsAndUpgradedByAWriter) {
  read_and_upgrade(1);
}

TEST_F(sqlite_journal_format_test, TimelineTextWithTabsNewlinesAndBackslashesReadsBackExactly) {
  const auto a = orders::create(sample_order("f-esc"));
  auto odd = finished(a, 1, attempt_class::unknown, 0, t0 + 1s);
  odd.request_id = "r\t\\t\n\\";
  odd.transport_error = "reset\nby peer\t\\n";
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(a)));
    ASSERT_FALSE(write_durable(*j, started(a, 1)));
    ASSERT_FALSE(write_durable(*j, odd));
  }
  // One line per event in the row, whatever the text held.
  EXPECT_EQ(query_int(path(),
                      "SELECT length(timeline) - length(replace(timeline, char(10), '')) FROM "
                      "intents"),
            3);
  auto j = open();
  ASSERT_TRUE(j);
  const auto got = j->timeline(a.key());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[2].request_id, odd.request_id);
  EXPECT_EQ(got[2].detail, odd.transport_error);
  EXPECT_EQ(got[2].duration, 42ms);
  EXPECT_EQ(got[2].cls, attempt_class::unknown);
  EXPECT_EQ(got[1].cls, std::nullopt);
}

TEST_F(sqlite_journal_format_test, OnlyACleanCloseLeavesTheCleanShutdownMark) {
  const auto a = orders::create(sample_order("f-mark"));
  {
    auto j = open();
    ASSERT_TRUE(j);
    // Cleared, durably, before anything is written: a process dying now leaves it cleared.
    EXPECT_EQ(clean_mark(), 0);
    ASSERT_FALSE(write_durable(*j, created(a)));
  }
  EXPECT_EQ(clean_mark(), 1);
  ASSERT_EQ(die_after_writing({started(a, 1)}), 0);
  EXPECT_EQ(clean_mark(), 0) << "a process that died left the mark of a clean close";
  auto j = open();  // the full check ran, and found the file sound
  ASSERT_TRUE(j);
  EXPECT_TRUE(j->find(a.key())->maybe_sent());
}

// The plan of the query SQL runs for `sql` on the journal's file, one detail per line.
std::string query_plan(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::string plan;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, ("EXPLAIN QUERY PLAN " + sql).c_str(), -1, &s, nullptr) ==
        SQLITE_OK) {
      while (sqlite3_step(s) == SQLITE_ROW)
        plan += std::string(reinterpret_cast<const char*>(sqlite3_column_text(s, 3))) + "\n";
    }
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return plan;
}

// Open intents are found through an index of the open ones only (issue 47): an intent that ends
// leaves it, and a final intent costs it nothing, where an index over every state took an
// insert per ending intent (about 9,600 instructions an intent of a journaled load, with the
// delete it shares). A writer's open gives a file of the older index the new one.
TEST_F(sqlite_journal_format_test, OpenIntentsAreIndexedAloneAndAnOlderIndexIsReplaced) {
  const auto a = orders::create(sample_order("f-open-a"));
  const auto b = orders::create(sample_order("f-open-b"));
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(a)));
    ASSERT_FALSE(write_durable(*j, created(b)));
    ASSERT_FALSE(write_durable(*j, reported(b, outcome_kind::succeeded, 201, "{}")));
  }
  const std::string open_sql = "SELECT key FROM intents WHERE state = 'open' ORDER BY seq";
  EXPECT_NE(query_plan(path(), open_sql).find("intents_open"), std::string::npos)
      << query_plan(path(), open_sql);
  EXPECT_EQ(query_int(path(), "SELECT count(*) FROM sqlite_schema WHERE name = 'intents_by_state'"),
            0);
  // A file as an idem before this index wrote it: the index over every state.
  exec_sql(path(),
           "DROP INDEX intents_open; CREATE INDEX intents_by_state ON intents (state, seq);");
  {
    auto j = open();
    ASSERT_TRUE(j);
    EXPECT_EQ(keys_of_open(*j), (std::vector<std::string>{a.key().str()}));
  }
  EXPECT_EQ(query_int(path(), "SELECT count(*) FROM sqlite_schema WHERE name = 'intents_by_state'"),
            0);
  EXPECT_EQ(query_int(path(), "SELECT count(*) FROM sqlite_schema WHERE name = 'intents_open'"), 1);
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(keys_of_open(*j), (std::vector<std::string>{a.key().str()}));
}

TEST_F(sqlite_journal_format_test, TheOrdersLookupsAreStoredByNameAndReadBackWhole) {
  // 13 bytes in the row instead of about 220 of JSON (issue 47: bytes written per intent).
  const auto order = orders::create(sample_order("f-named"));
  const auto paid = orders::pay("ord_9", {.amount_minor = 10, .currency = "EUR"});
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(order)));
    ASSERT_FALSE(write_durable(*j, created(paid)));
  }
  EXPECT_EQ(query_int(path(),
                      "SELECT count(*) FROM intents WHERE lookup_kind IN "
                      "('order_created', 'payment_captured')"),
            2);
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(j->find(order.key())->what.lookup(), order.lookup());
  EXPECT_EQ(j->find(paid.key())->what.lookup(), paid.lookup());
}

}  // namespace
}  // namespace idem::test::journal
