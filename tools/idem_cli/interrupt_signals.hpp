#pragma once
// Ctrl-C (SIGINT) and SIGTERM for idem-cli: the first one is delivered to a handler on the
// io_context, so the command can cancel what is in flight and still print what happened; after
// it the signals get their default action again, so a second Ctrl-C ends the process at once.

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <functional>

namespace idem::cli {

/// Watches SIGINT and SIGTERM from construction to destruction. Not thread-safe; the handler
/// runs on `io`'s thread, at most once.
class interrupt_signals {
 public:
  interrupt_signals(boost::asio::io_context& io, std::function<void(int signal_number)> handler);
  ~interrupt_signals();
  interrupt_signals(const interrupt_signals&) = delete;
  interrupt_signals& operator=(const interrupt_signals&) = delete;

 private:
  boost::asio::signal_set signals_;
};

}  // namespace idem::cli
