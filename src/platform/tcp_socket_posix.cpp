#ifndef _WIN32  // Windows: tcp_socket_windows.cpp
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "platform/tcp_socket.hpp"

namespace idem::detail {

bool is_ip_family(int family) noexcept {
  return family == AF_INET || family == AF_INET6;
}

bool is_ipv6_family(int family) noexcept {
  return family == AF_INET6;
}

native_socket open_tcp_socket(int family) noexcept {
#ifdef SOCK_CLOEXEC
  return ::socket(family, SOCK_STREAM | SOCK_CLOEXEC, IPPROTO_TCP);
#else
  // Apple's systems have no SOCK_CLOEXEC: the flag is set right after (a fork in between, on
  // another thread, may inherit the descriptor).
  const int fd = ::socket(family, SOCK_STREAM, IPPROTO_TCP);
  if (fd >= 0) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
  return fd;
#endif
}

int close_socket(native_socket socket) noexcept {
  return ::close(socket);
}

}  // namespace idem::detail
#endif  // _WIN32
