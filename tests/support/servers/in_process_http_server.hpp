#pragma once
// The mock server's HTTP front end alone (mock::http_server with a handler of the test's own) on
// 127.0.0.1:0, run by a background thread, so that front-end tests talk to it over real sockets
// while they inspect and steer it on its own thread.

#include <gtest/gtest.h>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <future>
#include <memory>
#include <thread>

#include "mock_server/http/http_server.hpp"

namespace idem::kit {

/// Owns the io_context, the server and the thread. Thread-safety: call it from the test's
/// thread; io() may be used to create timers the handler waits on.
class in_process_http_server {
 public:
  /// Every wait on the server's thread gives up after this long (turns a hang into a failure).
  static constexpr std::chrono::milliseconds hang_bound{10'000};

  in_process_http_server() = default;
  /// Stops the thread (see stop()), then destroys the server.
  ~in_process_http_server();
  in_process_http_server(const in_process_http_server&) = delete;
  in_process_http_server& operator=(const in_process_http_server&) = delete;

  [[nodiscard]] boost::asio::io_context& io() noexcept { return io_; }

  /// Creates the server, starts its accept loop, then the thread. Call once.
  void start(mock::request_handler handler, mock::http_server_options options);
  /// True between start() and destroy_server().
  [[nodiscard]] bool has_server() const noexcept { return server_ != nullptr; }
  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }

  /// Runs f on the server's thread and returns its result; aborts the test binary if the thread
  /// does not get to it within hang_bound (a stuck server would hang every later step too).
  template <typename F>
  auto on_io(F f) -> decltype(f()) {
    std::packaged_task<decltype(f())()> task(std::move(f));
    auto result = task.get_future();
    boost::asio::post(io_, std::move(task));
    if (result.wait_for(hang_bound) != std::future_status::ready) {
      ADD_FAILURE() << "the server's thread is stuck";
      std::abort();
    }
    return result.get();
  }

  /// Calls http_server::shutdown() on the server's thread; the future is ready once on_stopped
  /// ran.
  std::future<void> shutdown();
  /// http_server::open_connections(), read on the server's thread.
  [[nodiscard]] std::size_t open_connections();
  /// Destroys the server on its thread (as its owner would without a shutdown).
  void destroy_server();
  /// Stops the io_context and joins the thread; what is still suspended on it stays so until the
  /// io_context goes. Harmless when already stopped or never started.
  void stop();

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_{
      io_.get_executor()};
  std::unique_ptr<mock::http_server> server_;
  std::uint16_t port_ = 0;
  std::thread thread_;
};

}  // namespace idem::kit
