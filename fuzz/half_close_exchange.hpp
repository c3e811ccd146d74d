#pragma once
// One exchange over a loopback connection, as both ends of the socket-level fuzz targets do it:
// write everything, half-close, then read until the peer closes.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/awaitable.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"

namespace idem::fuzz {

/// Writes `bytes` to `socket`, shuts its sending side, and returns what arrives until the peer
/// closes or the connection fails. Never throws on a network error: the peer may answer and
/// close before it has read everything.
inline boost::asio::awaitable<std::string> write_then_drain(boost::asio::ip::tcp::socket& socket,
                                                            std::string_view bytes) {
  namespace asio = boost::asio;
  constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);
  co_await asio::async_write(socket, asio::buffer(bytes), use_nothrow);
  boost::system::error_code ec;
  socket.shutdown(asio::ip::tcp::socket::shutdown_send, ec);
  std::string received;
  char chunk[4096];
  while (true) {
    auto [read_error, n] = co_await socket.async_read_some(asio::buffer(chunk), use_nothrow);
    received.append(chunk, n);
    if (read_error) co_return received;
  }
}

/// A client's whole exchange with a server under fuzzing: connects to `server`, writes `input`,
/// half-closes, keeps what comes back in `answer` until the server closes, then resets the
/// connection (SO_LINGER 0, so that no TIME_WAIT is left behind per input) and sets `done`.
inline boost::asio::awaitable<void> client_exchange(boost::asio::ip::tcp::endpoint server,
                                                    std::string_view input, std::string& answer,
                                                    bool& done) {
  namespace asio = boost::asio;
  using tcp = asio::ip::tcp;
  tcp::socket socket(co_await asio::this_coro::executor);
  auto [connect_error] = co_await socket.async_connect(server, asio::as_tuple(asio::use_awaitable));
  IDEM_FUZZ_CHECK(!connect_error);
  answer = co_await write_then_drain(socket, input);
  boost::system::error_code ec;
  socket.set_option(tcp::socket::linger(true, 0), ec);
  socket.close(ec);
  done = true;
}

}  // namespace idem::fuzz
