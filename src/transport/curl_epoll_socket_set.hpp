#pragma once
// The descriptors of one curl multi handle in one epoll set of their own, and that set waited
// for as a single descriptor through the executor's reactor (private to the idem library;
// Linux and Android only).
//
// The portable socket_table gives each connection an Asio socket, a reactor registration and a
// pending wait with its handler: about 580 bytes per connection at 5,000 in flight (heaptrack,
// docs/PERFORMANCE.md), and an epoll_ctl per wait. Here a connection costs one 8-byte entry in
// a vector indexed by descriptor, and curl's wishes go straight to epoll_ctl; the reactor sees
// one descriptor, readable whenever any watched one is ready.
//
// The set is level-triggered, like the poll() that curl's own multi_perform uses: a descriptor
// curl did not drain is reported again.
//
// A connection curl lets go of (CURL_POLL_REMOVE: its transfer ended, it waits in curl's cache)
// stays in the set as it is, with no system call. When curl reuses it for what it was last
// registered for (reading the next answer, nearly always), nothing changes in the kernel either:
// no system call, where leaving and joining the set (EPOLL_CTL_DEL, then EPOLL_CTL_ADD) were two
// per request and an EPOLL_CTL_MOD to the same events one. Such a MOD could not report anything
// an unchanged registration does not: the kernel queues a ready descriptor when it becomes ready
// (and keeps a level-triggered one queued while it stays ready), and a MOD wakes the waiter only
// for a ready descriptor that is not queued yet, which with unchanged events none is. Only other
// events take a MOD. A kept connection that becomes ready while curl does not want it (the
// server closed it) is taken out of the set when reported, so that it is not reported over and
// over, and joins it again (EPOLL_CTL_ADD, which reports it at once) if curl wants it. Each
// registration carries its descriptor's generation, so a report for a descriptor that was closed
// and whose number was reused by the time the report is read is dropped, not handed to the new
// connection.
//
// Ownership is as in socket_table: connection sockets are made (CURLOPT_OPENSOCKETFUNCTION) and
// closed (CURLOPT_CLOSESOCKETFUNCTION) here; curl's own descriptors (the threaded resolver's
// socket pair) are borrowed while curl asks and forgotten, never closed, on CURL_POLL_REMOVE.

#include <curl/curl.h>

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace idem::detail {

/// Thread-safety: none; used on the transport's executor, from inside curl's callbacks.
/// Never calls into curl; `ready` does, and is only ever called from the set's wait completing.
class epoll_socket_set {
 public:
  /// `ready(fd, events)` runs on `ex` when a descriptor curl wants watched is ready: `events`
  /// is a mask of CURL_CSELECT_IN, CURL_CSELECT_OUT and CURL_CSELECT_ERR. Throws
  /// std::system_error if the kernel gives no epoll instance.
  epoll_socket_set(boost::asio::any_io_executor ex,
                   std::function<void(curl_socket_t fd, int events)> ready);
  ~epoll_socket_set() { clear(); }
  epoll_socket_set(const epoll_socket_set&) = delete;
  epoll_socket_set& operator=(const epoll_socket_set&) = delete;

  /// For CURLOPT_OPENSOCKETFUNCTION: a new TCP socket of `address`'s family, or CURL_SOCKET_BAD.
  [[nodiscard]] curl_socket_t open(const curl_sockaddr& address) noexcept;
  /// For CURLOPT_CLOSESOCKETFUNCTION: stops watching `fd` and closes it. 0 on success, as curl
  /// expects.
  int close(curl_socket_t fd) noexcept;
  /// For CURLMOPT_SOCKETFUNCTION: watches `fd` for what curl wants (CURL_POLL_REMOVE: no more).
  /// The set's wait holds `keep_alive`, which must keep this set alive. A descriptor that cannot
  /// be watched is left to curl's own timeouts.
  void want(curl_socket_t fd, int what, const std::shared_ptr<void>& keep_alive) noexcept;
  /// Forgets every descriptor: closes ours, lets go of the borrowed ones. `ready` is not called
  /// for any of them afterwards.
  void clear() noexcept;

  /// Descriptors known: every connection socket still open, and borrowed ones being watched.
  [[nodiscard]] std::size_t size() const noexcept { return known_; }
  /// Descriptors curl wants something of now.
  [[nodiscard]] std::size_t watched() const noexcept { return watched_; }
  /// Changes asked of the kernel's epoll set so far (epoll_ctl calls).
  [[nodiscard]] std::uint64_t set_changes() const noexcept { return set_changes_; }

 private:
  struct entry {
    std::uint32_t generation = 0;  ///< of the descriptor now under this number
    std::uint8_t wanted = 0;       ///< CURL_POLL_IN / _OUT / _INOUT, 0: curl wants nothing
    bool known = false;
    bool owned = false;           ///< made by open(): closed here
    bool in_set = false;          ///< in the epoll set, for `registered`
    std::uint8_t registered = 0;  ///< what the set watches it for (CURL_POLL_* bits) when in_set
  };

  entry* find(curl_socket_t fd) noexcept;
  // A fresh entry for `fd`, with a new generation. nullptr if the vector cannot grow.
  entry* adopt(curl_socket_t fd, bool owned) noexcept;
  // Takes `fd` out of the epoll set and forgets it (closing it if owned and `close_it`).
  int forget(curl_socket_t fd, entry& e, bool close_it) noexcept;
  // Takes `fd` out of the epoll set, if it is in it.
  void leave_set(curl_socket_t fd, entry& e) noexcept;
  // Asks the epoll set for `wanted` (CURL_POLL_* bits; 0: nothing) of `fd`, putting it in the
  // set if it is not. false if the kernel refused.
  bool set_events(curl_socket_t fd, entry& e, std::uint8_t wanted) noexcept;
  void arm(const std::shared_ptr<void>& keep_alive);
  void on_ready(const boost::system::error_code& ec, const std::shared_ptr<void>& keep_alive);
  void stop_waiting_if_idle() noexcept;

  std::function<void(curl_socket_t, int)> ready_;
  boost::asio::posix::stream_descriptor epoll_;  // the epoll instance, as the reactor sees it
  std::vector<entry> entries_;                   // by descriptor number
  std::size_t known_ = 0;
  std::size_t watched_ = 0;
  std::uint32_t next_generation_ = 0;
  std::uint64_t set_changes_ = 0;
  bool waiting_ = false;  // an async_wait on epoll_ has not completed yet
};

}  // namespace idem::detail
