#pragma once
/// @file
/// A blocking face for code without an event loop: runs its own io_context on its own thread.

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <memory>
#include <thread>

#include "idem/client.hpp"

namespace idem {

/// Owns an io_context, one thread running it, and a client on it.
/// Thread-safety: submit() may be called from several threads at once (each blocks its caller);
/// never call it from a completion handler of this client (it would wait on itself).
class blocking_client {
 public:
  /// With the client's defaults (curl_transport, asio_scheduler) on this object's io_context.
  explicit blocking_client(client_options options);
  /// Builds the transport and scheduler (e.g. test fakes) on this object's io_context: each
  /// factory is called with its executor.
  template <class MakeTransport, class MakeScheduler>
  blocking_client(client_options options, MakeTransport make_transport,
                  MakeScheduler make_scheduler)
      : io_(), work_(io_.get_executor()) {
    auto ex = io_.get_executor();
    client_ =
        std::make_unique<client>(ex, std::move(options), make_transport(ex), make_scheduler(ex));
    thread_ = std::thread([this] { io_.run(); });
  }
  /// Cancels what is in flight (each completes unresolved or not_sent) and joins the thread.
  ~blocking_client();
  blocking_client(const blocking_client&) = delete;
  blocking_client& operator=(const blocking_client&) = delete;

  /// Submits `i` and waits for its outcome (at most the deadline, which includes the lookup).
  [[nodiscard]] outcome submit(const intent& i);
  /// As above, with this submission's own deadline and extra headers.
  [[nodiscard]] outcome submit(const intent& i, submit_options options);
  [[nodiscard]] client& async() noexcept { return *client_; }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::unique_ptr<client> client_;
  std::thread thread_;
};

}  // namespace idem
