#include "mock_server/commit_group.hpp"

#include <sqlite3.h>

#include <boost/asio/post.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <exception>
#include <iostream>

namespace idem::mock {

namespace asio = boost::asio;

struct commit_group::batch {
  explicit batch(const asio::any_io_executor& ex)
      : ended(ex, asio::steady_timer::time_point::max()) {}

  enum class state { open, committed, failed };
  state now = state::open;
  std::int64_t members = 0;
  /// Never expires: cancelled when the group ends, which wakes every member waiting on it.
  asio::steady_timer ended;
};

commit_group::member::member(database& db, std::shared_ptr<batch> b)
    : batch_(std::move(b)), scope_(db) {
  savepoint_.emplace(db, transaction::savepoint);
}

commit_group::~commit_group() {
  close();
}

std::unique_ptr<commit_group::member> commit_group::join(const asio::any_io_executor& ex) {
  if (!open_) {
    db_.exec("BEGIN IMMEDIATE");  // no hold is set yet: this settles nothing
    open_ = std::make_shared<batch>(ex);
    db_.set_group_hold(this);
    // Posted after what is ready now: the members of this turn join before it runs. An open
    // group always has its commit_group alive (the destructor closes it), hence `this`.
    asio::post(ex, [this, b = open_] {
      if (b->now == batch::state::open) close();
    });
  }
  std::unique_ptr<member> m{new member{db_, open_}};
  ++open_->members;
  return m;
}

void commit_group::close() noexcept {
  if (!open_) return;
  auto b = std::move(open_);
  db_.set_group_hold(nullptr);  // before COMMIT: exec must not settle the group it is closing
  try {
    db_.exec("COMMIT");
    b->now = batch::state::committed;
    ++groups_committed_;
    members_committed_ += b->members;
  } catch (const std::exception& e) {
    std::cerr << "idem-mock-server: group commit of " << b->members
              << " request(s) failed, nothing of theirs is stored: " << e.what() << '\n';
    if (sqlite3_get_autocommit(db_.handle()) == 0) {
      sqlite3_exec(db_.handle(), "ROLLBACK", nullptr, nullptr, nullptr);
    }
    b->now = batch::state::failed;
  }
  b->ended.cancel();
}

asio::awaitable<bool> commit_group::committed(std::shared_ptr<batch> b) {
  while (b->now == batch::state::open) {
    boost::system::error_code ec;
    co_await b->ended.async_wait(asio::redirect_error(asio::use_awaitable, ec));
  }
  co_return b->now == batch::state::committed;
}

}  // namespace idem::mock
