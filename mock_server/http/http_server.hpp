#pragma once
// The mock server's HTTP/1.1 front end on Boost.Beast: accepts connections, reads requests with
// limits and timeouts, hands each to the core as a transport-neutral `request`, and writes the
// `reply` (or resets / stalls the connection when a fault asks). Beast is included only by the
// front end's own files (http_server.cpp, http_connection.cpp, http_wire.cpp) to keep build
// times down.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "mock_server/http/http_message.hpp"

namespace idem::mock {

/// What one connection may cost. Together the limits bound what one request makes the server read
/// (about header_limit + body_limit + framing_limit bytes) and hold (a read buffer of
/// header_limit + 4 KiB, in which any one chunk-size line and the trailer section must fit, plus
/// the request), and max_connections bounds how many connections do so at once.
struct http_server_options {
  std::size_t body_limit = 64 * 1024;    ///< larger bodies: request.body_too_large, then close
  std::size_t header_limit = 16 * 1024;  ///< larger header blocks: 431, then close
  /// Chunked framing one request may carry besides its data: chunk-size lines with their
  /// extensions and the trailer section. More: 413 payload-too-large, then close.
  std::size_t framing_limit = 64 * 1024;
  /// Time allowed to read one whole request once its first byte arrived (header and body).
  std::chrono::milliseconds read_timeout{30'000};
  /// Time allowed to write one response.
  std::chrono::milliseconds write_timeout{30'000};
  /// How long a keep-alive connection may sit idle between requests.
  std::chrono::milliseconds idle_timeout{60'000};
  /// On shutdown, how long in-flight requests get to finish before their connections are closed.
  std::chrono::milliseconds shutdown_grace{10'000};
  /// Connections served at once. At the cap a new connection takes the slot of the connection
  /// idle the longest (a keep-alive one between requests, or one that sent nothing for a
  /// second), which is closed; with none idle it is answered `503 unavailable` with
  /// `Retry-After: 1` after its request head, then closed. Lowered at construction to what the
  /// process's descriptor limit (RLIMIT_NOFILE) can hold, so that the 503 comes before EMFILE.
  std::size_t max_connections = 1024;
  /// Beyond max_connections: how many connections may still be served one request each when
  /// their target is a control path, so that a full server still answers its health checks
  /// and its operator.
  std::size_t control_connections = 8;
  /// The control paths: a path equal to one, or under one that ends in '/'. Empty: none.
  std::vector<std::string> control_paths{};
};

/// How many descriptors the process may still open (RLIMIT_NOFILE less those open now); the
/// largest value when unlimited or unknown.
[[nodiscard]] std::size_t free_descriptors() noexcept;
/// Raises the process's soft descriptor limit to its hard limit (what servers do at start);
/// returns the soft limit in force afterwards.
std::size_t raise_descriptor_limit() noexcept;

/// The core: turns one request into one reply. Runs on the server's executor; may suspend
/// (timers for faults and `Prefer: wait`). It must not throw; if it does, the server answers
/// `500 internal` (problem+json) and keeps running.
using request_handler = std::function<boost::asio::awaitable<reply>(request)>;

/// An HTTP/1.1 server. Keep-alive; one request at a time per connection (no pipelining of
/// responses); `HEAD` answers go out without content; trailer fields never reach the handler as
/// headers; malformed requests and framing that cannot be trusted get `400` (or `501`) and the
/// connection closes; the accept loop survives accept errors (EMFILE: a spare descriptor accepts
/// the waiting connection to answer it `503`; otherwise it waits briefly and goes on, logging one
/// line per 10 s). All work runs on the given
/// executor, which should be single-threaded (an io_context run by one thread or a strand).
/// Thread-safety: call every member from that executor's thread.
class http_server {
 public:
  http_server(boost::asio::any_io_executor ex, const boost::asio::ip::tcp::endpoint& listen_on,
              request_handler handler, http_server_options options = {});
  ~http_server();
  http_server(const http_server&) = delete;
  http_server& operator=(const http_server&) = delete;

  /// The bound address (useful with port 0).
  [[nodiscard]] boost::asio::ip::tcp::endpoint local_endpoint() const;
  /// Starts the accept loop.
  void start();
  /// Graceful stop: closes the acceptor, closes idle connections, lets each request in flight
  /// finish and write its response (at most `shutdown_grace`), then calls `on_stopped` once
  /// every connection is gone. Calling it twice is harmless (the second callback is also called).
  void shutdown(std::function<void()> on_stopped);
  /// Connections currently open: those served and those being refused at the cap.
  [[nodiscard]] std::size_t open_connections() const noexcept;

 private:
  struct state;
  std::shared_ptr<state> state_;
};

}  // namespace idem::mock
