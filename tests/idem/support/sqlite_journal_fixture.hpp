#pragma once
// Shared by the sqlite_journal tests (sqlite_journal_test, sqlite_journal_safety_test): a fresh
// directory per test for the journal file (and its -wal, -shm and .lock files), events with
// millisecond-exact times in virtual time, and an io_context on the test thread that receives
// the journal's completions.

#include <gtest/gtest.h>
#include <sqlite3.h>
#include <sys/wait.h>
#include <unistd.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <system_error>
#include <vector>

#include "idem/journal_error.hpp"
#include "idem/orders.hpp"
#include "idem/sqlite_journal.hpp"
#include "tests/support/temp_dir.hpp"

namespace idem::test::journal {

using namespace std::chrono_literals;

// Virtual time, whole milliseconds (the journal stores milliseconds).
inline const wall_time t0{std::chrono::milliseconds{1'800'000'000'000}};

inline orders::order_request sample_order(const std::string& id, std::int64_t amount = 1500) {
  return {.merchant_order_id = id,
          .customer_id = "c-1",
          .currency = "EUR",
          .amount_minor = amount,
          .items = {{.sku = "book", .quantity = 3, .unit_price_minor = amount / 3}}};
}

inline events::created created(const intent& what, wall_time at = t0) {
  return {.what = what, .principal = "sha256:principal-a", .at = at};
}
inline events::attempt_started started(const intent& what, std::uint32_t n, wall_time at = t0) {
  return {.key = what.key(), .number = n, .at = at};
}
inline events::attempt_finished finished(const intent& what, std::uint32_t n, attempt_class cls,
                                         int status, wall_time at = t0) {
  return {.key = what.key(),
          .number = n,
          .at = at,
          .cls = cls,
          .status = status,
          .request_id = "req-" + std::to_string(n),
          .took = 42ms};
}
inline events::outcome_reported reported(const intent& what, outcome_kind kind, int status = 0,
                                         std::string body = {}, wall_time at = t0) {
  return {
      .key = what.key(),
      .at = at,
      .result = outcome(outcome_fields{.kind = kind, .status = status, .body = std::move(body)})};
}

inline std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

inline void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << bytes;
}

// Rows of `sql` (one integer) straight from the file, past the journal.
inline std::int64_t query_int(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  std::int64_t value = -1;
  if (sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READONLY, nullptr) == SQLITE_OK) {
    sqlite3_stmt* s = nullptr;
    if (sqlite3_prepare_v2(db, sql.c_str(), -1, &s, nullptr) == SQLITE_OK &&
        sqlite3_step(s) == SQLITE_ROW)
      value = sqlite3_column_int64(s, 0);
    sqlite3_finalize(s);
  }
  sqlite3_close(db);
  return value;
}

// Runs one statement straight on the file, past the journal (closed meanwhile).
inline void exec_sql(const std::string& path, const std::string& sql) {
  sqlite3* db = nullptr;
  ASSERT_EQ(sqlite3_open_v2(path.c_str(), &db, SQLITE_OPEN_READWRITE, nullptr), SQLITE_OK);
  EXPECT_EQ(sqlite3_exec(db, sql.c_str(), nullptr, nullptr, nullptr), SQLITE_OK)
      << sqlite3_errmsg(db);
  sqlite3_close(db);
}

// Runs `child` in a forked process and returns its exit status (128 + the signal if a signal
// ended it, -1 if it cannot be told). The child ends with _exit: nothing of the parent's (gtest,
// open journals) runs there.
inline int in_child_process(const std::function<int()>& child) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 125;
    try {
      code = child();
    } catch (...) {
    }
    ::_exit(code);
  }
  int status = 0;
  if (pid < 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The exit status a child reports for an open: 0 if it opened, the journal_errc otherwise
// (100 for an error of another category).
inline int exit_status_of(const std::error_code& ec) {
  if (!ec) return 0;
  return ec.category() == journal_category() ? ec.value() : 100;
}

class journal_fixture : public ::testing::Test {
 protected:
  [[nodiscard]] std::string path() const { return dir.file("journal.db"); }

  [[nodiscard]] journal_options options() const {
    return {.path = path(), .wall_clock = [] { return t0 + 1h; }};
  }

  std::shared_ptr<sqlite_journal> open(journal_options o) {
    std::error_code ec;
    std::string why;
    auto j = sqlite_journal::open(std::move(o), ec, &why);
    EXPECT_TRUE(j) << ec.message() << ": " << why;
    EXPECT_FALSE(ec);
    return j;
  }
  std::shared_ptr<sqlite_journal> open() { return open(options()); }

  // A process that writes `waited` (each made durable) and then `unwaited` (not waited for),
  // and dies at once without closing anything (SIGKILL: no destructor runs, the writer thread
  // and the lock die with the process; _exit would let TSan's runtime finalize for over a
  // second while the writer thread went on and committed). 0 when every waited write was
  // durable before it died.
  int die_after_writing(const std::vector<intent_event>& waited,
                        const std::vector<intent_event>& unwaited = {}) {
    const int status = in_child_process([&] {
      boost::asio::io_context child_io;
      std::error_code ec;
      auto o = options();
      o.deferred_commit_delay = std::chrono::hours(1);  // nothing commits them but a write
      auto j = sqlite_journal::open(o, ec);
      if (!j) return 10;
      std::size_t waiting = waited.size();
      bool failed = false;
      for (const auto& e : waited)
        j->async_write(e, child_io.get_executor(), [&](std::error_code e) {
          failed = failed || e;
          --waiting;
        });
      while (waiting > 0 && child_io.run_one_for(30s) > 0) {
      }
      if (waiting != 0 || failed) ::_exit(11);
      for (const auto& e : unwaited)
        j->write(e);
      ::raise(SIGKILL);
      return 12;
    });
    return status == 128 + SIGKILL ? 0 : status;
  }

  // The error an open fails with (and its detail in `why`).
  std::error_code open_error(journal_options o, std::string* why = nullptr) {
    std::error_code ec;
    auto j = sqlite_journal::open(std::move(o), ec, why);
    EXPECT_FALSE(j) << "opened, expected an error";
    EXPECT_TRUE(ec);
    return ec;
  }

  // Starts a durable write; its result lands in the returned slot when io runs. `loop` is the
  // executor the write is started from (io's own unless a test watches how it is used).
  std::shared_ptr<std::optional<std::error_code>> start_write(
      intent_store& store, intent_event e, std::optional<boost::asio::any_io_executor> loop = {}) {
    auto slot = std::make_shared<std::optional<std::error_code>>();
    store.async_write(std::move(e), loop ? *loop : io.get_executor(),
                      boost::asio::bind_executor(io, [slot](std::error_code ec) { *slot = ec; }));
    return slot;
  }

  // Writes `e` and waits until the journal says it is durable (or why not).
  std::error_code write_durable(intent_store& store, intent_event e,
                                std::optional<boost::asio::any_io_executor> loop = {}) {
    auto slot = start_write(store, std::move(e), std::move(loop));
    run_until([&] { return slot->has_value(); });
    return slot->value_or(make_error_code(journal_errc::closed));
  }

  std::error_code flush(sqlite_journal& j) {
    auto slot = std::make_shared<std::optional<std::error_code>>();
    j.async_flush(io.get_executor(),
                  boost::asio::bind_executor(io, [slot](std::error_code ec) { *slot = ec; }));
    run_until([&] { return slot->has_value(); });
    return slot->value_or(make_error_code(journal_errc::closed));
  }

  // Runs completions on this thread until `done`; a generous bound turns a hang into a failure.
  void run_until(const std::function<bool()>& done) {
    io.restart();
    while (!done()) {
      if (io.run_one_for(30s) == 0) {
        ADD_FAILURE() << "no completion arrived";
        return;
      }
    }
  }

  idem::kit::temp_dir dir;
  boost::asio::io_context io;
};

}  // namespace idem::test::journal
