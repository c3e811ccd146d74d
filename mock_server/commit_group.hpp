#pragma once
// Group commit for the claim transactions of idempotent POSTs. Each POST claims its key (and a
// first create also inserts its order and completes its record) in one transaction; the POSTs
// that are ready in one turn of the event loop share that transaction instead, each in a
// SAVEPOINT of its own (one that throws rolls back alone), and one COMMIT makes them all
// durable: one write of the shared table and index pages to the WAL instead of one per request.
//
// A member acts on what it decided (replies, starts its execution, waits) only after that COMMIT
// returned, so "acknowledged => durable" holds as with a commit per request; when the COMMIT
// fails, every member answers 500 with nothing stored (its key stays free).
//
// The group closes at the end of the turn (a handler posted when it opened), or earlier, the
// moment anything else uses the connection (database::group_hold): nobody outside the group reads
// what is not yet durable. A lookup by business ID must not find an order whose COMMIT may fail.
//
// Single-threaded, like the database: use from the server's event-loop thread only.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <cstdint>
#include <memory>
#include <optional>

#include "mock_server/sqlite.hpp"

namespace idem::mock {

class commit_group : private database::group_hold {
 public:
  struct batch;

  /// One member's place in the open group: while it lives, the connection's transaction is its
  /// own, inside its savepoint. `txn().commit()` keeps its writes in the group; destroying the
  /// member without that rolls back its writes alone.
  class member {
   public:
    member(member&&) = delete;
    member& operator=(member&&) = delete;
    ~member() = default;

    [[nodiscard]] transaction& txn() noexcept { return *savepoint_; }
    /// The group this member joined, to wait for with `committed`.
    [[nodiscard]] std::shared_ptr<batch> joined() const { return batch_; }

   private:
    friend class commit_group;
    member(database& db, std::shared_ptr<batch> b);

    std::shared_ptr<batch> batch_;
    database::member_scope scope_;          // outlives the savepoint
    std::optional<transaction> savepoint_;  // declared last: destroyed first
  };

  explicit commit_group(database& db) : db_(db) {}
  /// Commits a group still open (a member of it is never answered: the event loop has stopped).
  ~commit_group();
  commit_group(const commit_group&) = delete;
  commit_group& operator=(const commit_group&) = delete;

  /// Joins the open group, or opens one (`BEGIN IMMEDIATE`) and posts its close to `ex`. Throws
  /// sqlite_error when the transaction or the savepoint cannot begin.
  [[nodiscard]] std::unique_ptr<member> join(const boost::asio::any_io_executor& ex);

  /// Suspends until the group `b` has ended: true when it committed, false when its COMMIT failed
  /// (nothing any member wrote is stored).
  static boost::asio::awaitable<bool> committed(std::shared_ptr<batch> b);

  /// Commits the open group now, if there is one. Never throws: a failed COMMIT rolls back and
  /// tells the members so.
  void close() noexcept;

  /// Groups committed and members they held, since construction (for /metrics and tests).
  [[nodiscard]] std::int64_t groups_committed() const noexcept { return groups_committed_; }
  [[nodiscard]] std::int64_t members_committed() const noexcept { return members_committed_; }

 private:
  void close_for_outside_use() noexcept override { close(); }

  database& db_;
  std::shared_ptr<batch> open_;
  std::int64_t groups_committed_ = 0;
  std::int64_t members_committed_ = 0;
};

}  // namespace idem::mock
