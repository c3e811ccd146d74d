// The parts of the store interface every store shares unless it knows better.
#include "idem/intent_store.hpp"

#include <atomic>
#include <boost/asio/append.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>
#include <memory>
#include <mutex>

namespace idem {

void intent_store::async_flush(boost::asio::any_io_executor ex, write_handler handler) {
  // Nothing is pending in a store that is durable on write: done, posted as every completion.
  boost::asio::post(ex, boost::asio::append(std::move(handler), std::error_code{}));
}

bool intent_store::write_if_covered(const intent_event&) {
  return false;  // every write waits for its handler, as async_write says
}

void intent_store::async_write_all(std::vector<intent_event> events,
                                   boost::asio::any_io_executor ex, write_handler handler) {
  if (events.empty()) {
    boost::asio::post(ex, boost::asio::append(std::move(handler), std::error_code{}));
    return;
  }
  // The writes' completions may run on several threads of `ex` at once.
  struct join {
    // Constructed in place: Boost 1.81's any_completion_handler move assignment recurses
    // without end.
    join(std::size_t n, write_handler h) : left(n), handler(std::move(h)) {}
    std::atomic<std::size_t> left;
    std::mutex mutex;
    std::error_code first;
    write_handler handler;
  };
  auto j = std::make_shared<join>(events.size(), std::move(handler));
  for (auto& e : events) {
    async_write(std::move(e), ex, [j](std::error_code ec) {
      if (ec) {
        std::lock_guard lock(j->mutex);
        if (!j->first) j->first = ec;
      }
      if (j->left.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
      std::error_code first;
      {
        std::lock_guard lock(j->mutex);
        first = j->first;
      }
      // On the handler's own executor, if it has one (we run on `ex`).
      boost::asio::dispatch(boost::asio::append(std::move(j->handler), first));
    });
  }
}

}  // namespace idem
