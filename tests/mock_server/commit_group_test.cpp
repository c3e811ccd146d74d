// Group commit of claim transactions (mock_server/commit_group.hpp): the POSTs ready in one turn
// of the event loop share one COMMIT, each member's writes roll back alone, nobody outside the
// group reads what is not yet committed, and a failed COMMIT tells every member so.
#include "mock_server/commit_group.hpp"

#include <gtest/gtest.h>
#include <sqlite3.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "mock_server/app.hpp"
#include "mock_server/server_state.hpp"
#include "tests/support/api_client.hpp"
#include "tests/support/running_server.hpp"
#include "tests/support/temp_db_file.hpp"

namespace idem::mock {
namespace {

namespace asio = boost::asio;
using testing::temp_db_file;

std::int64_t rows(database& db, const std::string& table) {
  return db.single_int64("SELECT COUNT(*) FROM " + table);
}

// Counts the COMMITs that reach the database file (sqlite3_commit_hook).
struct commit_counter {
  explicit commit_counter(database& db) {
    sqlite3_commit_hook(
        db.handle(),
        [](void* n) {
          ++*static_cast<int*>(n);
          return 0;
        },
        &commits);
  }
  int commits = 0;
};

class commit_group_test : public ::testing::Test {
 protected:
  void SetUp() override {
    db.exec("CREATE TABLE parent (id INTEGER PRIMARY KEY)");
    db.exec(
        "CREATE TABLE t (v TEXT UNIQUE, parent INTEGER REFERENCES parent(id) DEFERRABLE "
        "INITIALLY DEFERRED)");
  }

  // Joins the group, inserts `v` and keeps it in the group; returns the group to wait for.
  std::shared_ptr<commit_group::batch> insert_as_member(std::string_view v) {
    auto m = group.join(io.get_executor());
    db.prepare("INSERT INTO t (v) VALUES (?1)").bind(1, v).run();
    m->txn().commit();
    return m->joined();
  }

  // What `commit_group::committed` says once the event loop has run.
  std::optional<bool> outcome(std::shared_ptr<commit_group::batch> b) {
    auto result = std::make_shared<std::optional<bool>>();
    asio::co_spawn(
        io,
        [b, result]() -> asio::awaitable<void> { *result = co_await commit_group::committed(b); },
        asio::detached);
    io.run();
    io.restart();
    return *result;
  }

  temp_db_file file;
  database db{file.path()};
  database reader{file.path()};  // another connection: sees committed rows only
  asio::io_context io;
  commit_group group{db};
};

TEST_F(commit_group_test, MembersOfOneTurnShareOneCommitMadeAtTheEndOfTheTurn) {
  commit_counter counted{db};
  auto first = insert_as_member("a");
  auto second = insert_as_member("b");
  EXPECT_EQ(first, second);
  EXPECT_EQ(rows(reader, "t"), 0) << "nothing is visible before the group commits";
  EXPECT_EQ(counted.commits, 0);

  EXPECT_EQ(outcome(first), true);
  EXPECT_EQ(outcome(second), true);
  EXPECT_EQ(rows(reader, "t"), 2);
  EXPECT_EQ(counted.commits, 1);
  EXPECT_EQ(group.groups_committed(), 1);
  EXPECT_EQ(group.members_committed(), 2);
}

TEST_F(commit_group_test, AMemberThatDoesNotCommitRollsBackItsOwnWritesOnly) {
  auto kept = insert_as_member("kept");
  {
    auto m = group.join(io.get_executor());
    db.prepare("INSERT INTO t (v) VALUES ('thrown away')").run();
  }  // as when the member's work throws
  auto after = insert_as_member("after");
  EXPECT_EQ(outcome(kept), true);
  EXPECT_EQ(outcome(after), true);
  EXPECT_EQ(rows(reader, "t"), 2);
  EXPECT_EQ(reader.single_int64("SELECT COUNT(*) FROM t WHERE v = 'thrown away'"), 0);
}

TEST_F(commit_group_test, AnyUseOutsideAMemberCommitsTheGroupFirst) {
  auto b = insert_as_member("a");
  // A lookup that is not a member (a GET, the reaper, the stats) reads only what is durable.
  EXPECT_EQ(rows(db, "t"), 1);
  EXPECT_EQ(rows(reader, "t"), 1);
  EXPECT_EQ(group.groups_committed(), 1);
  EXPECT_EQ(outcome(b), true);

  auto c = insert_as_member("b");
  EXPECT_FALSE(db.in_transaction()) << "asking commits the group";
  EXPECT_EQ(rows(reader, "t"), 2);
  {
    transaction own{db};  // so does a transaction of its own
    db.exec("INSERT INTO t (v) VALUES ('own')");
    own.commit();
  }
  EXPECT_EQ(outcome(c), true);
  EXPECT_EQ(group.groups_committed(), 2);
}

TEST_F(commit_group_test, AFailedCommitTellsEveryMemberNothingOfTheirsIsStored) {
  auto valid = insert_as_member("valid");
  {
    // A deferred foreign key is checked at COMMIT: this member makes the whole COMMIT fail.
    auto m = group.join(io.get_executor());
    db.exec("INSERT INTO t (v, parent) VALUES ('orphan', 42)");
    m->txn().commit();
  }
  EXPECT_EQ(outcome(valid), false);
  EXPECT_EQ(rows(reader, "t"), 0);
  EXPECT_FALSE(db.in_transaction());
  EXPECT_EQ(group.groups_committed(), 0);

  auto next = insert_as_member("next");  // the connection is usable again
  EXPECT_EQ(outcome(next), true);
  EXPECT_EQ(rows(reader, "t"), 1);
}

TEST_F(commit_group_test, DestroyingTheGroupCommitsWhatIsOpen) {
  {
    commit_group other{db};
    auto m = other.join(io.get_executor());
    db.exec("INSERT INTO t (v) VALUES ('at shutdown')");
    m->txn().commit();
  }
  EXPECT_EQ(rows(reader, "t"), 1);
}

// ---- in the server: the claims of creates that arrive in one turn ----

request create_order_request(int i) {
  const auto n = std::to_string(i);
  return request{
      .method = "POST",
      .target = "/v1/orders",
      .headers = {{"Authorization", "Bearer tenant-a"},
                  {"Idempotency-Key", "key-" + n},
                  {"Content-Type", "application/json"}},
      .body = testing::order_body("m-" + n).dump(),
      .body_too_large = false,
  };
}

TEST(commit_group_in_server, CreatesThatArriveInOneTurnAreCommittedTogetherAndThenAnswered) {
  temp_db_file file;
  auto options = testing::test_server_options();
  options.db_path = file.path();
  server_state state{options};
  commit_counter counted{state.db};
  asio::io_context io;
  std::vector<int> statuses;
  constexpr int creates = 5;
  for (int i = 0; i < creates; ++i) {
    asio::co_spawn(
        io,
        [&state, &statuses, i]() -> asio::awaitable<void> {
          auto out = co_await handle_request(state, create_order_request(i));
          statuses.push_back(out.res.status);
        },
        asio::detached);
  }
  io.run();

  EXPECT_EQ(statuses, std::vector<int>(creates, 201));
  EXPECT_EQ(counted.commits, 1) << "one commit for the five claims, orders and completions";
  database reader{file.path()};
  EXPECT_EQ(reader.single_int64("SELECT COUNT(*) FROM orders"), creates);
}

TEST(commit_group_in_server, ARetryInTheSameTurnReplaysTheCreateOfItsGroupOnceCommitted) {
  server_state state{testing::test_server_options()};
  asio::io_context io;
  std::vector<std::string> replayed;
  for (int copy = 0; copy < 2; ++copy) {
    asio::co_spawn(
        io,
        [&state, &replayed]() -> asio::awaitable<void> {
          auto out = co_await handle_request(state, create_order_request(7));
          EXPECT_EQ(out.res.status, 201);
          replayed.emplace_back(out.res.header("Idempotent-Replayed").value_or("absent"));
        },
        asio::detached);
  }
  io.run();
  EXPECT_EQ(replayed, (std::vector<std::string>{"false", "true"}));
  EXPECT_EQ(state.db.single_int64("SELECT COUNT(*) FROM orders"), 1);
}

}  // namespace
}  // namespace idem::mock
