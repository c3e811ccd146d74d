#if defined(__linux__)  // epoll is Linux's; other systems use socket_table

#include "transport/curl_epoll_socket_set.hpp"

#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <array>
#include <boost/asio/error.hpp>
#include <cerrno>
#include <new>
#include <system_error>

namespace idem::detail {

namespace asio = boost::asio;

namespace {

int new_epoll_instance() {
  const int fd = ::epoll_create1(EPOLL_CLOEXEC);
  if (fd < 0) throw std::system_error(errno, std::generic_category(), "epoll_create1");
  return fd;
}

std::uint32_t epoll_events_for(int curl_what) {
  std::uint32_t events = 0;
  if ((curl_what & CURL_POLL_IN) != 0) events |= EPOLLIN;
  if ((curl_what & CURL_POLL_OUT) != 0) events |= EPOLLOUT;
  return events;  // EPOLLERR and EPOLLHUP are always reported
}

// What socket_action should hear of `events` on a descriptor curl wants `wanted` of. A hang-up
// or an error is readable and writable, as poll() reports it to curl's own loop: the read or
// write then finds out what happened.
int curl_events_for(std::uint32_t events, int wanted) {
  const bool failed = (events & (EPOLLERR | EPOLLHUP)) != 0;
  int mask = 0;
  if ((wanted & CURL_POLL_IN) != 0 && ((events & EPOLLIN) != 0 || failed)) mask |= CURL_CSELECT_IN;
  if ((wanted & CURL_POLL_OUT) != 0 && ((events & EPOLLOUT) != 0 || failed)) {
    mask |= CURL_CSELECT_OUT;
  }
  if ((events & EPOLLERR) != 0) mask |= CURL_CSELECT_ERR;
  return mask;
}

}  // namespace

epoll_socket_set::epoll_socket_set(asio::any_io_executor ex,
                                   std::function<void(curl_socket_t, int)> ready)
    : ready_(std::move(ready)), epoll_(std::move(ex), new_epoll_instance()) {}

epoll_socket_set::entry* epoll_socket_set::find(curl_socket_t fd) noexcept {
  if (fd < 0 || static_cast<std::size_t>(fd) >= entries_.size()) return nullptr;
  entry& e = entries_[static_cast<std::size_t>(fd)];
  return e.known ? &e : nullptr;
}

epoll_socket_set::entry* epoll_socket_set::adopt(curl_socket_t fd, bool owned) noexcept {
  if (fd < 0) return nullptr;
  const auto index = static_cast<std::size_t>(fd);
  try {
    if (index >= entries_.size()) entries_.resize(index + 1);
  } catch (const std::bad_alloc&) {
    return nullptr;
  }
  entry& e = entries_[index];
  if (e.known) forget(fd, e, /*close_it=*/false);  // closed behind our back: a stale entry
  e = entry{.generation = ++next_generation_, .wanted = 0, .known = true, .owned = owned};
  ++known_;
  return &e;
}

void epoll_socket_set::leave_set(curl_socket_t fd, entry& e) noexcept {
  if (!e.in_set) return;
  ::epoll_ctl(epoll_.native_handle(), EPOLL_CTL_DEL, fd, nullptr);
  ++set_changes_;
  e.in_set = false;
}

int epoll_socket_set::forget(curl_socket_t fd, entry& e, bool close_it) noexcept {
  // Needed for a borrowed descriptor (curl closes it next, while a duplicate may keep it in the
  // set) and harmless for ours, which leave the set when closed anyway.
  leave_set(fd, e);
  if (e.wanted != 0) --watched_;
  const bool close_fd = close_it && e.owned;
  e.known = false;
  e.wanted = 0;
  --known_;
  stop_waiting_if_idle();
  return close_fd ? ::close(fd) : 0;
}

curl_socket_t epoll_socket_set::open(const curl_sockaddr& address) noexcept {
  if (address.family != AF_INET && address.family != AF_INET6) return CURL_SOCKET_BAD;
  const int fd = ::socket(address.family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
  if (fd < 0) return CURL_SOCKET_BAD;
  if (adopt(fd, /*owned=*/true) == nullptr) {
    ::close(fd);
    return CURL_SOCKET_BAD;
  }
  return fd;
}

int epoll_socket_set::close(curl_socket_t fd) noexcept {
  entry* e = find(fd);
  if (e == nullptr) return ::close(fd);  // not ours, but curl wants it closed
  if (!e->owned) {  // curl only closes through us what we opened; be exact anyway
    forget(fd, *e, /*close_it=*/false);
    return ::close(fd);
  }
  return forget(fd, *e, /*close_it=*/true) == 0 ? 0 : -1;
}

void epoll_socket_set::want(curl_socket_t fd, int what,
                            const std::shared_ptr<void>& keep_alive) noexcept {
  entry* e = find(fd);
  if (what == CURL_POLL_REMOVE) {
    if (e == nullptr) return;
    if (!e->owned) {
      // Curl is about to close a borrowed descriptor: let go now, before its number is reused.
      forget(fd, *e, /*close_it=*/false);
      return;
    }
    // The socket stays until curl closes it (an idle keep-alive connection is unwatched, yet
    // open). It stays in the set as it is, no system call (the file's header says why), and
    // the set's wait ends when nothing is wanted: a pooled connection must not keep the
    // io_context busy.
    if (e->wanted != 0) {
      e->wanted = 0;
      --watched_;
      stop_waiting_if_idle();
    }
    return;
  }
  if (e == nullptr && (e = adopt(fd, /*owned=*/false)) == nullptr) return;
  const auto wanted = static_cast<std::uint8_t>(what & CURL_POLL_INOUT);
  if (wanted == e->wanted) {
    arm(keep_alive);
    return;
  }
  if (!set_events(fd, *e, wanted)) {
    // Not watched: curl's own timeouts end the transfer. A borrowed descriptor is not kept.
    leave_set(fd, *e);
    if (e->wanted != 0) {
      e->wanted = 0;
      --watched_;
    }
    if (!e->owned) forget(fd, *e, /*close_it=*/false);
    stop_waiting_if_idle();
    return;
  }
  if (e->wanted == 0) ++watched_;
  e->wanted = wanted;
  arm(keep_alive);
}

bool epoll_socket_set::set_events(curl_socket_t fd, entry& e, std::uint8_t wanted) noexcept {
  // Registered for these already (a kept connection reused to read its next answer): the
  // kernel has nothing to change, nor anything to report that it has not queued (the file's
  // header says why).
  if (e.in_set && e.registered == wanted) return true;
  epoll_event ev{};
  ev.events = epoll_events_for(wanted);
  ev.data.u64 = (static_cast<std::uint64_t>(e.generation) << 32) | static_cast<std::uint32_t>(fd);
  // An ADD, or a MOD to other events, of a descriptor that is ready for them queues it at once
  // and wakes the set's waiter.
  ++set_changes_;
  if (::epoll_ctl(epoll_.native_handle(), e.in_set ? EPOLL_CTL_MOD : EPOLL_CTL_ADD, fd, &ev) != 0)
    return false;
  e.in_set = true;
  e.registered = wanted;
  return true;
}

void epoll_socket_set::arm(const std::shared_ptr<void>& keep_alive) {
  if (waiting_ || watched_ == 0) return;
  try {
    epoll_.async_wait(
        asio::posix::descriptor_base::wait_read,
        [this, keep_alive](const boost::system::error_code& ec) { on_ready(ec, keep_alive); });
    waiting_ = true;
  } catch (const std::bad_alloc&) {
    // Nothing watched until curl next asks: its own timeouts still end the transfers.
  }
}

void epoll_socket_set::on_ready(const boost::system::error_code& ec,
                                const std::shared_ptr<void>& keep_alive) {
  waiting_ = false;
  if (ec && ec != asio::error::operation_aborted) return;  // the epoll instance itself failed
  if (!ec) {
    // Reports are read in batches; level-triggered, whatever is left is reported next round,
    // after the reactor has run everything else that was ready.
    std::array<epoll_event, 64> events{};
    const int n =
        ::epoll_wait(epoll_.native_handle(), events.data(), static_cast<int>(events.size()), 0);
    for (int i = 0; i < n; ++i) {
      const auto fd = static_cast<curl_socket_t>(events[i].data.u64 & 0xffffffffU);
      const auto generation = static_cast<std::uint32_t>(events[i].data.u64 >> 32);
      // Looked up afresh each time: ready_ may open, close or re-want any descriptor.
      entry* e = find(fd);
      if (e == nullptr || e->generation != generation) continue;
      if (e->wanted == 0) {
        // A connection in curl's cache that became ready (the server closed it, or sent what
        // nobody asked for): out of the set, or it comes back every round. Curl finds out when
        // it next checks the connection.
        leave_set(fd, *e);
        continue;
      }
      if (const int mask = curl_events_for(events[i].events, e->wanted); mask != 0) {
        ready_(fd, mask);
      }
    }
  }
  // Aborted: the set went idle, and curl may have wanted a descriptor again since.
  arm(keep_alive);
}

void epoll_socket_set::stop_waiting_if_idle() noexcept {
  if (watched_ != 0 || !waiting_) return;
  boost::system::error_code ignored;
  epoll_.cancel(ignored);  // nothing to wait for: the io_context must not stay busy for it
}

void epoll_socket_set::clear() noexcept {
  for (std::size_t fd = 0; fd < entries_.size(); ++fd) {
    if (entries_[fd].known) forget(static_cast<curl_socket_t>(fd), entries_[fd], true);
  }
  entries_.clear();
  entries_.shrink_to_fit();
}

}  // namespace idem::detail

#endif  // defined(__linux__)
