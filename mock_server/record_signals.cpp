#include "mock_server/record_signals.hpp"

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
