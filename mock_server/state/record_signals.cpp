#include "mock_server/state/record_signals.hpp"

#include <boost/asio/redirect_error.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

namespace idem::mock {

namespace asio = boost::asio;

asio::awaitable<void> record_signals::wait(std::int64_t record_id,
                                           std::chrono::steady_clock::time_point deadline) {
  auto timer = std::make_shared<asio::steady_timer>(co_await asio::this_coro::executor, deadline);
  auto& list = waiters_[record_id];
  std::erase_if(list, [](const auto& w) { return w.expired(); });
  list.push_back(timer);
  boost::system::error_code ec;  // operation_aborted means "notified"
  co_await timer->async_wait(asio::redirect_error(asio::use_awaitable, ec));
  // A waiter that timed out (nobody notified the record) removes itself: otherwise every record
  // ever waited on would keep an entry for the life of the server.
  forget(record_id, timer.get());
}

void record_signals::forget(std::int64_t record_id, const boost::asio::steady_timer* timer) {
  auto it = waiters_.find(record_id);
  if (it == waiters_.end()) return;
  std::erase_if(it->second, [timer](const auto& w) {
    auto t = w.lock();
    return !t || t.get() == timer;
  });
  if (it->second.empty()) waiters_.erase(it);
}

std::size_t record_signals::waiting_records() const noexcept {
  return waiters_.size();
}

void record_signals::notify(std::int64_t record_id) {
  auto it = waiters_.find(record_id);
  if (it == waiters_.end()) return;
  auto list = std::move(it->second);
  waiters_.erase(it);
  for (auto& w : list) {
    if (auto timer = w.lock()) timer->cancel();
  }
}

void record_signals::notify_all() {
  auto all = std::move(waiters_);
  waiters_.clear();
  for (auto& [id, list] : all) {
    for (auto& w : list) {
      if (auto timer = w.lock()) timer->cancel();
    }
  }
}

}  // namespace idem::mock
