// The journal's safety at open and at commit: one process at a time, a damaged, truncated or
// foreign file refused and left exactly as it was, a full disk and a write-protected file
// reported as such (nothing silently lost, nothing overwritten).

#include <grp.h>
#include <sqlite3.h>
#include <sys/stat.h>

#include <filesystem>

#include "tests/idem/support/sqlite_journal_fixture.hpp"

namespace idem::test::journal {
namespace {

constexpr uid_t nobody = 65534;

class sqlite_journal_safety_test : public journal_fixture {
 protected:
  // A closed journal holding `count` final intents whose answers are `body_bytes` long.
  std::vector<intent> fill(int count, std::size_t body_bytes) {
    std::vector<intent> made;
    auto j = open();
    if (!j) return made;
    for (int i = 0; i < count; ++i) {
      made.push_back(orders::create(sample_order("m-" + std::to_string(i))));
      EXPECT_FALSE(write_durable(*j, created(made.back())));
      EXPECT_FALSE(write_durable(
          *j, reported(made.back(), outcome_kind::succeeded, 201, std::string(body_bytes, 'r'))));
    }
    return made;
  }

  // Creates an SQLite database at path() with `sql` run in it (another program's file).
  void make_database(const std::string& sql) {
    sqlite3* db = nullptr;
    ASSERT_EQ(sqlite3_open(path().c_str(), &db), SQLITE_OK);
    EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK);
    sqlite3_close(db);
  }

  // Opens the journal in a child process that cannot write it (as `nobody` when the tests run
  // as root, since root writes any file whatever its mode) and returns the child's verdict.
  int open_as_unprivileged_child() {
    return in_child_process([this] {
      if (::geteuid() == 0 &&
          (::setgroups(0, nullptr) != 0 || ::setgid(nobody) != 0 || ::setuid(nobody) != 0))
        return 120;
      std::error_code ec;
      auto j = sqlite_journal::open(options(), ec);
      return exit_status_of(ec);
    });
  }

  // Leaves the file readable but not writable by the child: root-owned 0644 for `nobody`,
  // 0444 otherwise. The directory stays traversable, writable by the child or not.
  void write_protect(const std::string& file, bool directory_writable) {
    const bool root = ::geteuid() == 0;
    ASSERT_EQ(::chmod(file.c_str(), root ? 0644 : 0444), 0);
    const mode_t dir_mode = directory_writable ? (root ? 0777 : 0700) : (root ? 0755 : 0555);
    ASSERT_EQ(::chmod(dir.path().c_str(), dir_mode), 0);
  }

  void TearDown() override {
    ::chmod(dir.path().c_str(), 0700);  // so that the directory can be removed
  }
};

TEST_F(sqlite_journal_safety_test, SecondOpenIsLockedUntilTheFirstIsClosed) {
  auto first = open();
  ASSERT_TRUE(first);
  std::string why;
  EXPECT_EQ(open_error(options(), &why), journal_errc::locked);
  EXPECT_NE(why.find(path()), std::string::npos) << why;
  EXPECT_NE(why.find("pid " + std::to_string(::getpid())), std::string::npos) << why;
  first.reset();
  EXPECT_TRUE(open());
}

TEST_F(sqlite_journal_safety_test, ASecondPathToTheSameFileIsLockedToo) {
  // The one-writer lock went by the path string: a symlink to the journal let a second writer
  // in. It goes by the file the path resolves to.
  auto first = open();
  ASSERT_TRUE(first);
  const std::string alias = dir.file("alias.db");
  std::filesystem::create_symlink(path(), alias);
  auto o = options();
  o.path = alias;
  EXPECT_EQ(open_error(o), journal_errc::locked);
  o.path = dir.file(".") + "/journal.db";  // another spelling of the same path
  EXPECT_EQ(open_error(o), journal_errc::locked);
}

TEST_F(sqlite_journal_safety_test, ALockFileThatIsASymlinkIsNeverFollowed) {
  // Following it, the journal would truncate whatever it points at to write its pid there.
  const std::string victim = dir.file("victim.txt");
  write_bytes(victim, "precious");
  std::filesystem::create_symlink(victim, path() + ".lock");
  std::string why;
  EXPECT_TRUE(open_error(options(), &why)) << "opened through a symlinked lock file";
  EXPECT_EQ(read_bytes(victim), "precious");
}

TEST_F(sqlite_journal_safety_test, AnotherProcessIsLockedOutUntilTheFirstIsClosed) {
  auto first = open();
  ASSERT_TRUE(first);
  auto try_open = [this] {
    std::error_code ec;
    auto j = sqlite_journal::open(options(), ec);
    return exit_status_of(ec);
  };
  EXPECT_EQ(in_child_process(try_open), static_cast<int>(journal_errc::locked));
  first.reset();
  EXPECT_EQ(in_child_process(try_open), 0);
}

TEST_F(sqlite_journal_safety_test, DamagedPageIsRefusedAndTheFileLeftAsItWas) {
  fill(40, 2048);
  // As a process that died leaves it: the next open runs the full check.
  exec_sql(path(), "UPDATE journal_state SET value = 0");
  std::string bytes = read_bytes(path());
  ASSERT_GT(bytes.size(), 3u * 4096);
  for (std::size_t i = 4096; i < 2 * 4096; ++i)  // page 2, the intents table's root
    bytes[i] = static_cast<char>(0xA5 ^ (i * 31));
  write_bytes(path(), bytes);

  std::string why;
  EXPECT_EQ(open_error(options(), &why), journal_errc::corrupt);
  EXPECT_NE(why.find(path()), std::string::npos) << why;
  EXPECT_EQ(read_bytes(path()), bytes);
  // Still refused the next time: nothing was "repaired" or recreated.
  EXPECT_EQ(open_error(options()), journal_errc::corrupt);
  EXPECT_EQ(read_bytes(path()), bytes);
}

TEST_F(sqlite_journal_safety_test, DamageAfterACleanCloseIsFoundByTheFirstWriteNotTheOpen) {
  // A clean close spares the next open the full check (issue 47: 50-60 ms with 10,000
  // intents); damage done to the file while no process had it open is then found when a write
  // reaches the damaged page, and nothing is written.
  fill(40, 2048);
  std::string bytes = read_bytes(path());
  for (std::size_t i = 4096; i < 2 * 4096; ++i)  // page 2, the intents table's root
    bytes[i] = static_cast<char>(0xA5 ^ (i * 31));
  write_bytes(path(), bytes);
  auto j = open();
  ASSERT_TRUE(j);
  const auto order = orders::create(sample_order("m-after-damage"));
  EXPECT_EQ(write_durable(*j, created(order)), journal_errc::corrupt);
  j.reset();
  EXPECT_EQ(read_bytes(path()).substr(4096, 4096), bytes.substr(4096, 4096));
}

TEST_F(sqlite_journal_safety_test, TruncatedFileIsRefusedAsCorrupt) {
  fill(40, 2048);
  const std::string whole = read_bytes(path());
  const std::string half = whole.substr(0, whole.size() / 2);
  write_bytes(path(), half);
  std::string why;
  EXPECT_EQ(open_error(options(), &why), journal_errc::corrupt);
  EXPECT_EQ(read_bytes(path()), half);

  const std::string inside_header = whole.substr(0, 60);
  write_bytes(path(), inside_header);
  EXPECT_EQ(open_error(options(), &why), journal_errc::corrupt) << why;
  EXPECT_EQ(read_bytes(path()), inside_header);
}

TEST_F(sqlite_journal_safety_test, AFileShorterThanItsHeaderSaysOpensWhileItsWalHasTheRest) {
  // As a crash in the middle of a checkpoint leaves it (page 1, with the new page count, is
  // written before the pages that extend the file): SQLite completes it from the WAL, so the
  // open's size check must not call it truncated.
  const auto order = orders::create(sample_order("m-wal"));
  fill(3, 100);
  // The process grows the file by some pages (so page 1, with the new count, is in the WAL),
  // then dies before any checkpoint.
  ASSERT_EQ(
      die_after_writing({created(order), started(order, 1),
                         reported(order, outcome_kind::succeeded, 201, std::string(30'000, 'r'))}),
      0);
  ASSERT_GT(std::filesystem::file_size(path() + "-wal"), 0u);
  std::string bytes = read_bytes(path());
  ASSERT_GE(bytes.size(), 100u);
  bytes[28] = bytes[29] = 0x7f;  // the header's page count: far past the file's end
  write_bytes(path(), bytes);
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_EQ(j->find(order.key())->state, intent_state::succeeded);
}

TEST_F(sqlite_journal_safety_test, FileThatIsNotADatabaseIsNotAJournal) {
  std::string text;
  for (int i = 0; i < 500; ++i)
    text += "line " + std::to_string(i) + " of somebody's notes\n";
  write_bytes(path(), text);
  std::string why;
  EXPECT_EQ(open_error(options(), &why), journal_errc::not_a_journal);
  EXPECT_NE(why.find(path()), std::string::npos) << why;
  EXPECT_EQ(read_bytes(path()), text);
}

TEST_F(sqlite_journal_safety_test, AnotherApplicationsDatabaseIsNotAJournal) {
  make_database("PRAGMA application_id = 1234; CREATE TABLE notes (text TEXT);");
  const std::string before = read_bytes(path());
  std::string why;
  EXPECT_EQ(open_error(options(), &why), journal_errc::not_a_journal);
  EXPECT_NE(why.find("another application"), std::string::npos) << why;
  EXPECT_EQ(read_bytes(path()), before);
}

TEST_F(sqlite_journal_safety_test, DatabaseWithTablesButNoApplicationIdIsNotAJournal) {
  make_database("CREATE TABLE notes (text TEXT);");
  EXPECT_EQ(open_error(options()), journal_errc::not_a_journal);
}

TEST_F(sqlite_journal_safety_test, JournalOfANewerFormatIsRefused) {
  fill(1, 10);
  make_database("PRAGMA user_version = 99;");  // as a newer idem would leave it
  std::string why;
  EXPECT_EQ(open_error(options(), &why), journal_errc::not_a_journal);
  EXPECT_NE(why.find("newer"), std::string::npos) << why;
}

TEST_F(sqlite_journal_safety_test, EmptyFileBecomesANewJournal) {
  write_bytes(path(), "");
  const auto order = orders::create(sample_order("m-empty"));
  {
    auto j = open();
    ASSERT_TRUE(j);
    ASSERT_FALSE(write_durable(*j, created(order)));
  }
  auto j = open();
  ASSERT_TRUE(j);
  EXPECT_TRUE(j->find(order.key()));
}

TEST_F(sqlite_journal_safety_test, FullDiskFailsTheWriteKeepsItAndALaterCommitMakesItDurable) {
  fill(16, 8 * 1024);
  // The file may not grow past its size: the disk is full.
  auto o = options();
  o.max_pages = static_cast<std::uint32_t>(std::filesystem::file_size(path()) / 4096);
  auto j = open(o);
  ASSERT_TRUE(j);
  const auto big = intent::create({"POST", "/v1/orders"}, {{"note", std::string(40 * 1024, 'n')}});
  EXPECT_EQ(write_durable(*j, created(big)), journal_errc::full);
  EXPECT_EQ(write_durable(*j, started(big, 1)), journal_errc::full);

  // Nothing is lost: the record and its lines are held for the next commit.
  auto held = j->find(big.key());
  ASSERT_TRUE(held);
  EXPECT_EQ(held->attempts, 1u);
  ASSERT_EQ(j->open_intents().size(), 1u);
  EXPECT_EQ(j->timeline(big.key()).size(), 2u);
  EXPECT_EQ(j->counts().intents, 16u);  // the file does not have it

  // Space is freed (the old audit is purged); the next commit writes what failed.
  EXPECT_EQ(j->purge_final_before(t0 + 1s), 16u);
  EXPECT_FALSE(flush(*j));
  EXPECT_EQ(j->counts().intents, 1u);
  j.reset();

  j = open();
  ASSERT_TRUE(j);
  auto stored = j->find(big.key());
  ASSERT_TRUE(stored);
  EXPECT_EQ(stored->what.body(), big.body());
  EXPECT_TRUE(stored->maybe_sent());
  EXPECT_EQ(j->timeline(big.key()).size(), 2u);
}

// A commit writes a plan of many a chunk at a time (issue 47: a copy of each record held at
// once cost a plan of 40,000 intents 19 MB). The disk filling up after the first chunks went
// in fails the whole plan, keeps every intent of it, written or not, for the next commit, and
// that commit writes them all: none lost, none twice, in the order planned.
TEST_F(sqlite_journal_safety_test, APlanTheDiskFillsPartWayIsKeptWholeForTheNextCommit) {
  fill(100, 8 * 1024);
  auto o = options();
  // Room for some of the plan's rows, not for all of them: written, the commit failed at its
  // 619th row, in its third chunk (nothing outside the journal tells which chunk it was).
  o.max_pages = static_cast<std::uint32_t>(std::filesystem::file_size(path()) / 4096) + 60;
  auto j = open(o);
  ASSERT_TRUE(j);
  std::vector<intent> plan;
  std::vector<intent_event> events;
  for (int i = 0; i < 700; ++i) {
    plan.push_back(orders::create(sample_order("plan-" + std::to_string(i))));
    events.emplace_back(created(plan.back()));
  }
  std::optional<std::error_code> got;
  j->async_write_all(events, io.get_executor(),
                     boost::asio::bind_executor(io, [&](std::error_code ec) { got = ec; }));
  run_until([&] { return got.has_value(); });
  EXPECT_EQ(got, make_error_code(journal_errc::full));
  EXPECT_EQ(j->counts().intents, 100u);  // the file has none of the plan
  EXPECT_EQ(j->open_intents().size(), plan.size());

  EXPECT_EQ(j->purge_final_before(t0 + 1s), 100u);
  EXPECT_FALSE(flush(*j));
  EXPECT_EQ(j->counts().intents, plan.size());
  j.reset();

  j = open();
  ASSERT_TRUE(j);
  const auto open_now = j->open_intents();
  ASSERT_EQ(open_now.size(), plan.size());
  for (std::size_t i = 0; i < plan.size(); ++i) {
    EXPECT_EQ(open_now[i].what.key(), plan[i].key());
    EXPECT_EQ(open_now[i].what.body(), plan[i].body());
  }
  EXPECT_EQ(j->timeline(plan[350].key()).size(), 1u);
}

// SQLite's memory statistics, turned off only at the app's request and only before SQLite
// starts (issue 47: they cost every SQLite allocation a global mutex). Each case runs in a
// child that first shuts SQLite down, as a process that has not used it yet finds it.
TEST_F(sqlite_journal_safety_test, MemoryStatisticsGoOffOnlyAskedAndBeforeSQLiteStarts) {
  auto journal_in_child = [this](bool disable) {
    return in_child_process([&] {
      if (sqlite3_shutdown() != SQLITE_OK) return 10;
      const auto before = sqlite3_memory_used();
      if (disable && !sqlite_journal::disable_sqlite_memory_statistics()) return 11;
      auto j = open();
      if (!j) return 12;
      if (write_durable(*j, created(orders::create(sample_order("stats"))))) return 13;
      // SQLite has started: too late, nothing changes.
      if (sqlite_journal::disable_sqlite_memory_statistics()) return 14;
      return sqlite3_memory_used() > before ? 1 : 0;  // the open journal's memory, counted
    });
  };
  EXPECT_EQ(journal_in_child(false), 1);
  EXPECT_EQ(journal_in_child(true), 0);
}

// A writer with full durability gathers each commit's WAL frames into one write
// (wal_write_batching.hpp). Every commit, small or larger than what one write takes, is in the
// file for another connection as soon as it completes, and whole after the process dies.
TEST_F(sqlite_journal_safety_test, EachCommitIsInTheFileForAnotherConnectionOnceItCompletes) {
  auto j = open();
  ASSERT_TRUE(j);
  for (int n = 1; n <= 30; ++n) {
    // Every fifth intent's body spans several pages: commits of more than 96 KiB of frames.
    const auto what = n % 5 == 0 ? intent::create({"POST", "/v1/orders"},
                                                  {{"note", std::string(150 * 1024, 'w')}})
                                 : orders::create(sample_order("m-seen-" + std::to_string(n)));
    ASSERT_FALSE(write_durable(*j, created(what)));
    ASSERT_EQ(query_int(path(), "SELECT count(*) FROM intents"), n);
  }
  j.reset();
  ASSERT_EQ(die_after_writing({created(orders::create(sample_order("m-seen-last")))}), 0);
  EXPECT_EQ(query_int(path(), "SELECT count(*) FROM intents"), 31);
  auto reopened = open();  // the full check after a process that died: sound
  ASSERT_TRUE(reopened);
  EXPECT_EQ(reopened->counts().intents, 31u);
}

TEST_F(sqlite_journal_safety_test, WriteProtectedDirectoryFailsOpenAsReadOnly) {
  fill(1, 10);
  const std::string before = read_bytes(path());
  write_protect(path(), /*directory_writable=*/false);
  // Not even the lock file can be created.
  EXPECT_EQ(open_as_unprivileged_child(), static_cast<int>(journal_errc::read_only));
  EXPECT_EQ(read_bytes(path()), before);
}

TEST_F(sqlite_journal_safety_test, WriteProtectedFileFailsOpenAsReadOnly) {
  fill(1, 10);
  const std::string before = read_bytes(path());
  // The lock is taken and the -wal file could be created; SQLite would silently open the
  // file itself read-only, and every commit would fail later.
  const std::string lock = path() + ".lock";  // left by fill(), owned by this user
  ASSERT_EQ(::chmod(lock.c_str(), 0666), 0);
  write_protect(path(), /*directory_writable=*/true);
  EXPECT_EQ(open_as_unprivileged_child(), static_cast<int>(journal_errc::read_only));
  EXPECT_EQ(read_bytes(path()), before);
}

TEST_F(sqlite_journal_safety_test, ReadOnlyJournalOfAMissingFileIsAClearError) {
  auto o = options();
  o.read_only = true;
  std::string why;
  EXPECT_EQ(open_error(o, &why), journal_errc::not_a_journal);
  EXPECT_NE(why.find(path()), std::string::npos) << why;
  EXPECT_FALSE(std::filesystem::exists(path()));
}

}  // namespace
}  // namespace idem::test::journal
