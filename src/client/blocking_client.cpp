#include "idem/blocking_client.hpp"

#include <boost/asio/use_future.hpp>

namespace idem {

blocking_client::blocking_client(client_options options) : work_(io_.get_executor()) {
  client_ = std::make_unique<client>(io_.get_executor(), std::move(options));
  thread_ = std::thread([this] { io_.run(); });
}

blocking_client::~blocking_client() {
  // The client's destructor posts the cancellation of its flights; they then complete and the
  // io_context runs out of work once the guard is gone.
  client_.reset();
  work_.reset();
  if (thread_.joinable()) thread_.join();
}

outcome blocking_client::submit(const intent& i) {
  return submit(i, submit_options{});
}

outcome blocking_client::submit(const intent& i, submit_options options) {
  return client_->async_submit(i, std::move(options), boost::asio::use_future).get();
}

}  // namespace idem
