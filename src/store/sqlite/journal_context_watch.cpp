#include "store/sqlite/journal_context_watch.hpp"

namespace idem::detail {

boost::asio::execution_context::id journal_context_watch::id;

void journal_room::context_gone(const boost::asio::execution_context* ctx) {
  gone.insert(ctx);
  if (drop) drop(ctx);
}

journal_context_watch::journal_context_watch(boost::asio::execution_context& ctx)
    : boost::asio::execution_context::service(ctx) {}

void journal_context_watch::add(const std::shared_ptr<journal_room>& room) {
  std::lock_guard lock(mutex_);
  for (const auto& w : rooms_) {
    if (!w.owner_before(room) && !room.owner_before(w)) return;
  }
  std::erase_if(rooms_, [](const std::weak_ptr<journal_room>& w) { return w.expired(); });
  rooms_.push_back(room);
}

void journal_context_watch::shutdown() {
  std::vector<std::shared_ptr<journal_room>> rooms;
  {
    std::lock_guard lock(mutex_);
    for (const auto& w : rooms_) {
      if (auto r = w.lock()) rooms.push_back(std::move(r));
    }
    rooms_.clear();
  }
  for (const auto& r : rooms) {
    std::lock_guard lock(r->mutex);
    r->context_gone(&context());
  }
}

void watch_context(boost::asio::execution_context& ctx, const std::shared_ptr<journal_room>& room) {
  boost::asio::use_service<journal_context_watch>(ctx).add(room);
  std::lock_guard lock(room->mutex);
  // A new context may live where a destroyed one did.
  room->gone.erase(&ctx);
}

}  // namespace idem::detail
