#pragma once
// One accepted connection of the mock server's HTTP/1.1 front end: the session that owns its
// socket and timers, and the loop that serves its requests one after another (keep-alive) within
// the limits and timeouts of http_server_options. Private to the front end (http_server.cpp).

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/tcp_stream.hpp>
#include <chrono>
#include <string_view>

#include "mock_server/http/http_message.hpp"
#include "mock_server/http/http_server.hpp"

namespace idem::mock::wire {

// Every socket and timer wait reports errors as values: a failed read is a normal way for a
// connection to end, not an exceptional one.
constexpr auto use_nothrow = boost::asio::as_tuple(boost::asio::use_awaitable);

enum class session_phase {
  idle,      ///< waiting for the first byte of the next request
  busy,      ///< reading a request, running the handler, or writing the response
  draining,  ///< lingering close after an error answer
};

// One accepted connection. Owned by its coroutine (and by the server's registry while open).
struct session {
  explicit session(boost::asio::ip::tcp::socket socket)
      : stream(std::move(socket)),
        stall_timer(stream.get_executor()),
        idle_timer(stream.get_executor()),
        force_timer(stream.get_executor()) {
    force_timer.expires_at(boost::asio::steady_timer::time_point::max());
  }

  boost::beast::tcp_stream stream;
  boost::asio::steady_timer stall_timer;
  boost::asio::steady_timer idle_timer;  ///< the wait for a request's first byte
  // Never fires on its own; force_close() expires it to pull the session out of the handler.
  boost::asio::steady_timer force_timer;
  session_phase phase = session_phase::idle;
  /// Since when the session waits for its next request (phase idle).
  std::chrono::steady_clock::time_point idle_since = std::chrono::steady_clock::now();
  bool used = false;  ///< at least one response was written
  bool forced = false;
  bool evicted = false;  ///< closed while idle to make room for a new connection
  /// Accepted beyond max_connections: its one request is served on a control slot when its
  /// target is a control path and one is free, otherwise answered 503.
  bool refused = false;
  bool holds_control_slot = false;

  void close() noexcept { stream.close(); }

  // Whatever the session is doing, it ends now; a running handler is cancelled (terminal
  // cancellation of the operation it awaits) and no response is written.
  void force_close() noexcept {
    forced = true;
    try {
      force_timer.expires_at(boost::asio::steady_timer::time_point::min());
      stall_timer.cancel();
      idle_timer.cancel();
    } catch (...) {  // timers only throw on system failures; the socket close below suffices
    }
    stream.close();
  }

  // SO_LINGER{on, 0}: close() then discards unsent data and sends RST instead of FIN.
  void reset() noexcept {
    boost::system::error_code ec;
    stream.socket().set_option(boost::asio::ip::tcp::socket::linger(true, 0), ec);
    stream.close();
  }
};

/// The slots that serve control paths beyond max_connections (http_server_options).
struct control_slots {
  std::size_t in_use = 0;
  /// Takes a slot for `s` when `path` is a control path and a slot is free.
  bool take(const http_server_options& o, std::string_view path, session& s);
  void release(session& s) noexcept;
};

/// What a connection needs of its server, which outlives every connection's coroutine.
struct connection_context {
  const http_server_options& options;
  const request_handler& handler;
  /// The server began to shut down: no further request is read and nothing is kept alive.
  const bool& stopping;
  control_slots& control;
  /// The answer of a connection beyond max_connections.
  const response& at_capacity;
};

/// Serves the requests of `s` one after another until the connection is to close.
boost::asio::awaitable<void> serve_connection(connection_context ctx, session& s);

}  // namespace idem::mock::wire
