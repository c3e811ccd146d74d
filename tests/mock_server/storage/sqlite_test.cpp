#include "mock_server/storage/sqlite.hpp"
#include "tests/mock_server/support/count_rows.hpp"
#include "tests/support/temp_db_file.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <filesystem>
#include <random>
#include <string>

namespace idem::mock {
namespace {

using test::count_rows;

using kit::temp_db_file;

std::string pragma_text(database& db, const std::string& pragma) {
  auto& stmt = db.prepare("PRAGMA " + pragma);
  EXPECT_TRUE(stmt.step());
  auto value = stmt.text(0);
  stmt.reset();
  return value;
}

void insert_value(database& db, std::string_view value) {
  db.prepare("INSERT INTO t (v) VALUES (?1)").bind(1, value).run();
}

class sqlite_memory_test : public ::testing::Test {
 protected:
  void SetUp() override { db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)"); }
  database db{":memory:"};
};

TEST(sqlite_database, FileDatabaseUsesWalNormalSyncForeignKeysAndABusyTimeout) {
  temp_db_file file;
  database db{file.path()};
  EXPECT_EQ(pragma_text(db, "journal_mode"), "wal");
  EXPECT_EQ(pragma_text(db, "synchronous"), "1");  // NORMAL
  EXPECT_EQ(pragma_text(db, "foreign_keys"), "1");
  EXPECT_GT(std::stoi(pragma_text(db, "busy_timeout")), 0);
}

TEST(sqlite_database, DataWrittenToAFileSurvivesClosingAndReopening) {
  temp_db_file file;
  {
    database db{file.path()};
    db.exec("CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT UNIQUE)");
    transaction txn{db};
    insert_value(db, "kept");
    txn.commit();
  }
  database reopened{file.path()};
  auto& stmt = reopened.prepare("SELECT v FROM t");
  ASSERT_TRUE(stmt.step());
  EXPECT_EQ(stmt.text(0), "kept");
  EXPECT_FALSE(stmt.step());
}

TEST(sqlite_database, OpeningAPathInAMissingDirectoryThrowsCantOpen) {
  auto path = std::filesystem::temp_directory_path() / "idem_no_such_dir_7f3a" / "x.db";
  try {
    database db{path.string()};
    FAIL() << "opening should have failed";
  } catch (const sqlite_error& e) {
    EXPECT_EQ(e.code(), SQLITE_CANTOPEN);
  }
}

TEST_F(sqlite_memory_test, CommittedTransactionIsKept) {
  {
    transaction txn{db};
    insert_value(db, "a");
    txn.commit();
  }
  EXPECT_EQ(count_rows(db, "t"), 1);
  EXPECT_FALSE(db.in_transaction());
}

TEST_F(sqlite_memory_test, TransactionThatIsNotCommittedRollsBack) {
  {
    transaction txn{db};
    insert_value(db, "a");
    EXPECT_TRUE(db.in_transaction());
  }
  EXPECT_EQ(count_rows(db, "t"), 0);
  EXPECT_FALSE(db.in_transaction());
}

TEST_F(sqlite_memory_test, ExceptionLeavingATransactionRollsItBack) {
  EXPECT_THROW(
      {
        transaction txn{db};
        insert_value(db, "a");
        insert_value(db, "a");  // UNIQUE violation throws out of the scope
        txn.commit();
      },
      sqlite_error);
  EXPECT_EQ(count_rows(db, "t"), 0);
  EXPECT_FALSE(db.in_transaction());
}

TEST_F(sqlite_memory_test, TransactionInsideATransactionIsRefused) {
  transaction outer{db};
  EXPECT_THROW(transaction inner{db}, sqlite_error);
  EXPECT_TRUE(db.in_transaction());
}

TEST_F(sqlite_memory_test, FailedCommitThrowsAndTheDestructorRollsBack) {
  // A deferred foreign key is checked only at COMMIT, which then fails and leaves the
  // transaction open.
  db.exec(
      "CREATE TABLE parent (id INTEGER PRIMARY KEY);"
      "CREATE TABLE child (parent_id INTEGER REFERENCES parent (id) DEFERRABLE INITIALLY "
      "DEFERRED)");
  {
    transaction txn{db};
    db.exec("INSERT INTO child (parent_id) VALUES (42)");
    try {
      txn.commit();
      FAIL() << "commit should have failed";
    } catch (const sqlite_error& e) {
      EXPECT_EQ(e.code(), SQLITE_CONSTRAINT);
    }
    EXPECT_TRUE(db.in_transaction());
  }
  EXPECT_FALSE(db.in_transaction());
  EXPECT_EQ(count_rows(db, "child"), 0);
}

TEST_F(sqlite_memory_test, FullDatabaseThrowsSqliteFullAndStaysUsable) {
  // Capping the page count makes the database "full" without filling a disk.
  auto pages = pragma_text(db, "page_count");
  db.exec("PRAGMA max_page_count = " + pages);
  try {
    transaction txn{db};
    insert_value(db, std::string(64 * 1024, 'x'));
    txn.commit();
    FAIL() << "the insert should not fit";
  } catch (const sqlite_error& e) {
    EXPECT_EQ(e.code(), SQLITE_FULL);
  }
  EXPECT_FALSE(db.in_transaction());
  EXPECT_EQ(count_rows(db, "t"), 0);
  db.exec("PRAGMA max_page_count = 1000000");
  insert_value(db, "fits again");
  EXPECT_EQ(count_rows(db, "t"), 1);
}

TEST_F(sqlite_memory_test, ConstraintViolationThrowsWithTheConstraintCode) {
  insert_value(db, "a");
  try {
    insert_value(db, "a");
    FAIL() << "duplicate should have been refused";
  } catch (const sqlite_error& e) {
    EXPECT_EQ(e.code(), SQLITE_CONSTRAINT);
  }
  // The failed statement is reusable.
  insert_value(db, "b");
  EXPECT_EQ(count_rows(db, "t"), 2);
}

TEST_F(sqlite_memory_test, InvalidSqlThrowsWithTheErrorCodeAndNamesTheStatement) {
  try {
    db.prepare("SELEKT 1");
    FAIL() << "prepare should have failed";
  } catch (const sqlite_error& e) {
    EXPECT_EQ(e.code(), SQLITE_ERROR);
    EXPECT_NE(std::string{e.what()}.find("SELEKT"), std::string::npos);
  }
  EXPECT_THROW(db.exec("NOT SQL"), sqlite_error);
}

TEST_F(sqlite_memory_test, PreparedStatementsAreCachedBySqlText) {
  auto& first = db.prepare("SELECT v FROM t WHERE id = ?1");
  auto& again = db.prepare("SELECT v FROM t WHERE id = ?1");
  auto& other = db.prepare("SELECT id FROM t WHERE v = ?1");
  EXPECT_EQ(&first, &again);
  EXPECT_NE(&first, &other);
}

TEST_F(sqlite_memory_test, CachedStatementComesBackResetWithClearedBindings) {
  insert_value(db, "a");
  insert_value(db, "b");
  auto& stmt = db.prepare("SELECT COUNT(*), ?1 IS NULL FROM t WHERE v >= ?1");
  stmt.bind(1, "b");
  ASSERT_TRUE(stmt.step());
  EXPECT_EQ(stmt.int64(0), 1);

  // Left mid-way on purpose; the next prepare starts from scratch with NULL bindings.
  auto& again = db.prepare("SELECT COUNT(*), ?1 IS NULL FROM t WHERE v >= ?1");
  ASSERT_TRUE(again.step());
  EXPECT_EQ(again.int64(0), 0);
  EXPECT_EQ(again.int64(1), 1);
}

TEST_F(sqlite_memory_test, BindsAndReadsIntegersTextAndNull) {
  db.exec("CREATE TABLE v (i INTEGER, s TEXT, n TEXT)");
  const std::string with_nul{"a\0b", 3};
  db.prepare("INSERT INTO v (i, s, n) VALUES (?1, ?2, ?3)")
      .bind(1, INT64_MIN)
      .bind(2, with_nul)
      .bind(3, nullptr)
      .run();
  db.prepare("INSERT INTO v (i, s, n) VALUES (?1, ?2, ?3)")
      .bind(1, std::optional<std::int64_t>{})
      .bind(2, std::optional<std::string>{"x"})
      .bind(3, "")
      .run();

  auto& stmt = db.prepare("SELECT i, s, n FROM v ORDER BY rowid");
  ASSERT_TRUE(stmt.step());
  EXPECT_EQ(stmt.int64(0), INT64_MIN);
  EXPECT_EQ(stmt.text(1), with_nul);
  EXPECT_TRUE(stmt.is_null(2));
  EXPECT_EQ(stmt.text(2), "");
  EXPECT_EQ(stmt.optional_text(2), std::nullopt);
  EXPECT_EQ(stmt.optional_int64(0), INT64_MIN);

  ASSERT_TRUE(stmt.step());
  EXPECT_EQ(stmt.optional_int64(0), std::nullopt);
  EXPECT_EQ(stmt.optional_text(1), "x");
  EXPECT_FALSE(stmt.is_null(2));  // an empty string is not NULL
  EXPECT_EQ(stmt.optional_text(2), "");
  EXPECT_FALSE(stmt.step());
}

TEST_F(sqlite_memory_test, ChangesCountsTheRowsOfTheLastWrite) {
  insert_value(db, "a");
  insert_value(db, "b");
  insert_value(db, "c");
  db.prepare("UPDATE t SET v = v || '!' WHERE v <> ?1").bind(1, "a").run();
  EXPECT_EQ(db.changes(), 2);
  db.prepare("INSERT INTO t (v) VALUES (?1) ON CONFLICT DO NOTHING").bind(1, "a").run();
  EXPECT_EQ(db.changes(), 0);
}

TEST(sqlite_transaction, TransactionTakesTheWriteLockWhenItBegins) {
  temp_db_file file;
  database writer{file.path()};
  writer.exec("CREATE TABLE t (v TEXT)");
  database other{file.path()};
  other.exec("PRAGMA busy_timeout = 0");  // fail at once instead of waiting

  transaction txn{writer};  // nothing written yet: IMMEDIATE holds the lock anyway
  try {
    transaction competing{other};
    FAIL() << "a second writer should have been refused";
  } catch (const sqlite_error& e) {
    EXPECT_EQ(e.code(), SQLITE_BUSY);
  }
}

}  // namespace
}  // namespace idem::mock
