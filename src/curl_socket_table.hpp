#pragma once
// The descriptors of one curl multi handle as Asio sockets, so that waiting for their readiness
// goes through the executor's reactor (private to the idem library).
//
// Sockets for connections are created here (CURLOPT_OPENSOCKETFUNCTION) and closed here
// (CURLOPT_CLOSESOCKETFUNCTION), so Asio owns their whole life and a descriptor is closed exactly
// once. Descriptors curl makes itself (the threaded resolver's wake-up socket pair) are borrowed:
// watched while curl asks, handed back (release(), never closed) on CURL_POLL_REMOVE, which
// curl announces before it closes them.

#include <curl/curl.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
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
/// Never calls into curl.
class socket_table {
 public:
  explicit socket_table(boost::asio::any_io_executor ex) : ex_(std::move(ex)) {}
  ~socket_table() { clear(); }
  socket_table(const socket_table&) = delete;
  socket_table& operator=(const socket_table&) = delete;

  /// For CURLOPT_OPENSOCKETFUNCTION: a new TCP socket of `address`'s family, or CURL_SOCKET_BAD.
  [[nodiscard]] curl_socket_t open(const curl_sockaddr& address) noexcept;
  /// For CURLOPT_CLOSESOCKETFUNCTION: closes `fd` (pending waits complete as aborted). 0 on
  /// success, as curl expects.
  int close(curl_socket_t fd) noexcept;
  /// For CURLMOPT_SOCKETFUNCTION: records what curl wants for `fd`. Returns the watch whose
  /// waits the caller must (re-)arm, or nullptr when curl wants nothing (CURL_POLL_REMOVE: the
  /// pending waits are cancelled) or the descriptor cannot be watched.
  [[nodiscard]] std::shared_ptr<socket_watch> want(curl_socket_t fd, int what) noexcept;
  /// Forgets every descriptor: closes ours, hands back the borrowed ones.
  void clear() noexcept;

  [[nodiscard]] std::size_t size() const noexcept { return watches_.size(); }

 private:
  // Hands a watch's descriptor back without closing it, cancelling its waits.
  static void retire(socket_watch& w) noexcept;

  boost::asio::any_io_executor ex_;
  std::unordered_map<curl_socket_t, std::shared_ptr<socket_watch>> watches_;
};

}  // namespace idem::detail
