// The parts of the store interface every store shares unless it knows better.
#include "idem/intent_store.hpp"

#include <boost/asio/append.hpp>
#include <boost/asio/post.hpp>

namespace idem {

void intent_store::async_flush(boost::asio::any_io_executor ex, write_handler handler) {
  // Nothing is pending in a store that is durable on write: done, posted as every completion.
  boost::asio::post(ex, boost::asio::append(std::move(handler), std::error_code{}));
}

}  // namespace idem
