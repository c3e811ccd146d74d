#pragma once
// An io_context run by a thread of its own, for loopback servers that must answer while the
// test's thread is blocked elsewhere (in idem-cli's run_cli, in a child process's wait).

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <thread>

namespace idem::kit {

/// Runs its io_context from construction to destruction. The destructor stops it and joins the
/// thread; the io_context then goes, with every coroutine still suspended on it. Thread-safety:
/// io() may be called from any thread; what is spawned on it runs on the background thread.
class background_io {
 public:
  background_io() : thread_([this] { io_.run(); }) {}
  ~background_io() { stop(); }
  background_io(const background_io&) = delete;
  background_io& operator=(const background_io&) = delete;

  [[nodiscard]] boost::asio::io_context& io() noexcept { return io_; }

  /// Stops the io_context and joins the thread (once; the destructor calls it too). Objects
  /// living on io() may then be destroyed from the calling thread without racing the loop.
  void stop() {
    guard_.reset();
    io_.stop();
    if (thread_.joinable()) thread_.join();
  }

 private:
  boost::asio::io_context io_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> guard_ =
      boost::asio::make_work_guard(io_);
  std::thread thread_;
};

}  // namespace idem::kit
