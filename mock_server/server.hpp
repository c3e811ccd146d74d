#pragma once
// One mock server: the state (database, stores, clock, faults), the HTTP front end, the TTL
// reaper, the completer of abandoned records and the writer of the traffic counters, all on one
// single-threaded executor (WAL checkpoints run on a thread of their own: wal_checkpointer.hpp).

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <functional>
#include <memory>

#include "mock_server/state/server_options.hpp"

namespace idem::mock {

struct server_state;
class http_server;

/// Thread-safety: construct, start and shut down from the thread that runs `io`.
class server {
 public:
  /// Opens the database (creating the schema), expires leases left by an earlier run, binds the
  /// listening socket. Throws on a bad address, a port in use or an unusable database.
  server(boost::asio::io_context& io, server_options options);
  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  [[nodiscard]] boost::asio::ip::tcp::endpoint local_endpoint() const;
  /// Starts accepting, the reaper and the completer.
  void start();
  /// Graceful stop (see http_server::shutdown); `on_stopped` runs once everything is closed and
  /// the traffic counters are written.
  void shutdown(std::function<void()> on_stopped);

 private:
  void schedule_reaper();
  void schedule_completer();
  void schedule_counters();
  void persist_counters() noexcept;

  std::unique_ptr<server_state> state_;
  std::unique_ptr<http_server> http_;
  std::unique_ptr<boost::asio::steady_timer> reaper_;
  std::unique_ptr<boost::asio::steady_timer> completer_;
  std::unique_ptr<boost::asio::steady_timer> counters_;
  bool stopping_ = false;
};

}  // namespace idem::mock
