#ifdef _WIN32  // POSIX: tcp_socket_posix.cpp
#ifndef WIN32_LEAN_AND_MEAN
#define WIN32_LEAN_AND_MEAN
#endif
#include <winsock2.h>
#include <ws2tcpip.h>

#include <type_traits>

#include "platform/tcp_socket.hpp"

namespace idem::detail {

static_assert(std::is_same_v<native_socket, SOCKET>);

bool is_ip_family(int family) noexcept {
  return family == AF_INET || family == AF_INET6;
}

bool is_ipv6_family(int family) noexcept {
  return family == AF_INET6;
}

native_socket open_tcp_socket(int family) noexcept {
  // Overlapped, for Asio's I/O completion port; not inherited by child processes. Winsock is
  // started by curl_global_init (and by Asio) before any transfer opens a socket.
  return ::WSASocketW(family, SOCK_STREAM, IPPROTO_TCP, nullptr, 0,
                      WSA_FLAG_OVERLAPPED | WSA_FLAG_NO_HANDLE_INHERIT);
}

int close_socket(native_socket socket) noexcept {
  return ::closesocket(socket) == 0 ? 0 : -1;
}

}  // namespace idem::detail
#endif  // _WIN32
