#include "idem_cli/interrupt_signals.hpp"

#include <csignal>

namespace idem::cli {

interrupt_signals::interrupt_signals(boost::asio::io_context& io, std::function<void(int)> handler)
    : signals_(io, SIGINT, SIGTERM) {
  signals_.async_wait(
      [this, handler = std::move(handler)](const boost::system::error_code& ec, int number) {
        if (ec) return;  // cancelled: the command ended first
        // Removing the last registration restores the default action for the next signal.
        boost::system::error_code ignored;
        signals_.clear(ignored);
        handler(number);
      });
}

interrupt_signals::~interrupt_signals() {
  boost::system::error_code ignored;
  signals_.cancel(ignored);
}

}  // namespace idem::cli
