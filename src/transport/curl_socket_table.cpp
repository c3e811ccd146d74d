#include "transport/curl_socket_table.hpp"

#include <new>
#include <type_traits>

#include "platform/tcp_socket.hpp"

namespace idem::detail {

namespace asio = boost::asio;
using asio::ip::tcp;
static_assert(std::is_same_v<curl_socket_t, native_socket>);

curl_socket_t socket_table::open(const curl_sockaddr& address) noexcept {
  if (!is_ip_family(address.family)) return CURL_SOCKET_BAD;
  // The descriptor is made before Asio sees it so that a stale entry under the same number (a
  // descriptor closed behind our back) can be dropped first: its release() then deregisters a
  // number the reactor no longer knows, instead of the new socket.
  const curl_socket_t fd = open_tcp_socket(address.family);
  if (fd == CURL_SOCKET_BAD) return CURL_SOCKET_BAD;
  bool adopted = false;  // from then on the Asio socket closes the descriptor
  try {
    if (auto stale = watches_.find(fd); stale != watches_.end()) {
      retire(*stale->second);
      watches_.erase(stale);
    }
    tcp::socket socket(ex_);
    boost::system::error_code ec;
    socket.assign(is_ipv6_family(address.family) ? tcp::v6() : tcp::v4(), fd, ec);
    if (ec) {
      close_socket(fd);
      return CURL_SOCKET_BAD;
    }
    adopted = true;
    watches_.emplace(fd, std::make_shared<socket_watch>(std::move(socket), fd, /*is_owned=*/true));
    return fd;
  } catch (const std::bad_alloc&) {
    if (!adopted) close_socket(fd);
    return CURL_SOCKET_BAD;
  }
}

int socket_table::close(curl_socket_t fd) noexcept {
  auto it = watches_.find(fd);
  if (it == watches_.end()) return close_socket(fd);  // not watched, but curl wants it closed
  auto watch = std::move(it->second);
  watches_.erase(it);
  if (!watch->owned) {  // curl only closes through us what we opened; be exact anyway
    retire(*watch);
    return close_socket(fd);
  }
  watch->gone = true;
  boost::system::error_code ec;
  watch->socket.close(ec);
  return ec ? -1 : 0;
}

void socket_table::want(curl_socket_t fd, int what,
                        const std::shared_ptr<void>& keep_alive) noexcept {
  auto it = watches_.find(fd);
  if (what == CURL_POLL_REMOVE) {
    if (it == watches_.end()) return;
    auto& watch = *it->second;
    watch.wanted = CURL_POLL_NONE;
    if (watch.owned) {
      // The socket stays until curl closes it (an idle keep-alive connection is unwatched, yet
      // open), but its waits go: a pooled connection must not keep the io_context busy.
      boost::system::error_code ec;
      watch.socket.cancel(ec);
    } else {
      // Curl is about to close a borrowed descriptor: let go now, so that the reactor never
      // holds a number curl reuses.
      retire(watch);
      watches_.erase(it);
    }
    return;
  }
  try {
    if (it == watches_.end()) {
      tcp::socket socket(ex_);
      boost::system::error_code ec;
      // The family only matters for socket options; waiting for readiness works on any
      // descriptor the reactor accepts (here, the resolver's AF_UNIX socket pair).
      socket.assign(tcp::v4(), fd, ec);
      if (ec) return;  // curl's own timeouts still end the transfer
      it = watches_.emplace(fd, std::make_shared<socket_watch>(std::move(socket), fd, false)).first;
    }
    it->second->wanted = what;
    arm(it->second, keep_alive);
  } catch (const std::bad_alloc&) {
    // Not watched: curl's own timeouts still end the transfer.
  }
}

void socket_table::arm(const std::shared_ptr<socket_watch>& watch,
                       const std::shared_ptr<void>& keep_alive) {
  if (watch->gone) return;
  if ((watch->wanted & CURL_POLL_IN) != 0 && !watch->read_pending) {
    watch->read_pending = true;
    watch->socket.async_wait(asio::socket_base::wait_read,
                             [this, keep_alive, watch](boost::system::error_code ec) {
                               on_ready(watch, CURL_CSELECT_IN, ec, keep_alive);
                             });
  }
  if ((watch->wanted & CURL_POLL_OUT) != 0 && !watch->write_pending) {
    watch->write_pending = true;
    watch->socket.async_wait(asio::socket_base::wait_write,
                             [this, keep_alive, watch](boost::system::error_code ec) {
                               on_ready(watch, CURL_CSELECT_OUT, ec, keep_alive);
                             });
  }
}

void socket_table::on_ready(const std::shared_ptr<socket_watch>& watch, int event,
                            const boost::system::error_code& ec,
                            const std::shared_ptr<void>& keep_alive) {
  const bool reading = event == CURL_CSELECT_IN;
  (reading ? watch->read_pending : watch->write_pending) = false;
  // Closed, handed back, or the table cleared: the descriptor number may already belong to
  // another socket.
  if (watch->gone) return;
  if (ec == asio::error::operation_aborted) {
    // Cancelled when curl stopped watching; if it wants the socket again by now, the socket
    // callback could not arm a second wait while this one was pending, so arm it here.
    arm(watch, keep_alive);
    return;
  }
  // curl lost interest while this completion was queued; want() re-arms if it comes back.
  if ((watch->wanted & (reading ? CURL_POLL_IN : CURL_POLL_OUT)) == 0) return;
  ready_(watch->fd, ec ? CURL_CSELECT_ERR : event);
  // A wait that failed would fail again at once: leave the socket to curl's verdict (and its
  // timeouts) rather than spin.
  if (!ec) arm(watch, keep_alive);
}

void socket_table::clear() noexcept {
  for (auto& [fd, watch] : watches_) {
    if (watch->owned) {
      watch->gone = true;
      boost::system::error_code ec;
      watch->socket.close(ec);
    } else {
      retire(*watch);
    }
  }
  watches_.clear();
}

void socket_table::retire(socket_watch& w) noexcept {
  w.gone = true;
  boost::system::error_code ec;
  if (w.socket.is_open()) w.socket.release(ec);
}

}  // namespace idem::detail
