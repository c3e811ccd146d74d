#pragma once
// The descriptors of one curl multi handle as Asio sockets, each waited for through the
// executor's reactor (private to the idem library). The portable way to watch curl's sockets;
// on Linux the transport uses epoll_socket_set (curl_epoll_socket_set.hpp) instead, which needs
// no Asio object per connection. See curl_socket_watcher.hpp for the choice.
//
// Sockets for connections are created here (CURLOPT_OPENSOCKETFUNCTION) and closed here
// (CURLOPT_CLOSESOCKETFUNCTION), so Asio owns their whole life and a descriptor is closed exactly
// once. Descriptors curl makes itself (the threaded resolver's wake-up socket pair) are borrowed:
// watched while curl asks, handed back (release(), never closed) on CURL_POLL_REMOVE, which
// curl announces before it closes them.
//
// One thing below this table: when a descriptor is closed while the reactor round that saw it
// ready is still being run, Asio's epoll reactor may carry that readiness over, once, to the
// next socket registered under the same number (its per-descriptor state comes from a pool).
// That is a spurious "ready", never an error, and curl treats it as after any spurious poll()
// wake-up: it reads or writes, gets EAGAIN and waits on.

#include <curl/curl.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
#include <functional>
#include <memory>
#include <unordered_map>

namespace idem::detail {

/// One descriptor curl wants watched. Pending waits share it, so a late completion finds `gone`
/// set rather than whatever now uses the same descriptor number.
struct socket_watch {
  socket_watch(boost::asio::ip::tcp::socket s, curl_socket_t descriptor, bool is_owned)
      : socket(std::move(s)), fd(descriptor), owned(is_owned) {}

  boost::asio::ip::tcp::socket socket;
  curl_socket_t fd;
  bool owned;                   ///< made by `socket_table::open`: Asio closes it
  int wanted = CURL_POLL_NONE;  ///< CURL_POLL_IN / _OUT / _INOUT as curl last asked
  bool read_pending = false;    ///< an async_wait(wait_read) has not completed yet
  bool write_pending = false;   ///< an async_wait(wait_write) has not completed yet
  bool gone = false;            ///< closed or handed back: late completions must do nothing
};

/// Thread-safety: none; used on the transport's executor, from inside curl's callbacks.
/// Never calls into curl; `ready` does, and is only ever called from a wait's completion.
class socket_table {
 public:
  /// `ready(fd, events)` runs on `ex` when a descriptor curl wants watched is ready: `events`
  /// is CURL_CSELECT_IN, CURL_CSELECT_OUT or CURL_CSELECT_ERR, as socket_action takes them.
  socket_table(boost::asio::any_io_executor ex,
               std::function<void(curl_socket_t fd, int events)> ready)
      : ex_(std::move(ex)), ready_(std::move(ready)) {}
  ~socket_table() { clear(); }
  socket_table(const socket_table&) = delete;
  socket_table& operator=(const socket_table&) = delete;

  /// For CURLOPT_OPENSOCKETFUNCTION: a new TCP socket of `address`'s family, or CURL_SOCKET_BAD.
  [[nodiscard]] curl_socket_t open(const curl_sockaddr& address) noexcept;
  /// For CURLOPT_CLOSESOCKETFUNCTION: closes `fd` (pending waits complete as aborted). 0 on
  /// success, as curl expects.
  int close(curl_socket_t fd) noexcept;
  /// For CURLMOPT_SOCKETFUNCTION: watches `fd` for what curl wants (CURL_POLL_REMOVE: no more;
  /// its pending waits are cancelled). Waits hold `keep_alive`, which must keep this table
  /// alive. A descriptor that cannot be watched is left to curl's own timeouts.
  void want(curl_socket_t fd, int what, const std::shared_ptr<void>& keep_alive) noexcept;
  /// Forgets every descriptor: closes ours, hands back the borrowed ones. `ready` is not called
  /// for any of them afterwards.
  void clear() noexcept;

  /// Descriptors known: every connection socket still open, and borrowed ones being watched.
  [[nodiscard]] std::size_t size() const noexcept { return watches_.size(); }

 private:
  void arm(const std::shared_ptr<socket_watch>& watch, const std::shared_ptr<void>& keep_alive);
  void on_ready(const std::shared_ptr<socket_watch>& watch, int event,
                const boost::system::error_code& ec, const std::shared_ptr<void>& keep_alive);
  // Hands a watch's descriptor back without closing it, cancelling its waits.
  static void retire(socket_watch& w) noexcept;

  boost::asio::any_io_executor ex_;
  std::function<void(curl_socket_t, int)> ready_;
  std::unordered_map<curl_socket_t, std::shared_ptr<socket_watch>> watches_;
};

}  // namespace idem::detail
