#pragma once
// Internal: a TCP socket made and closed with each system's own calls, for the transport's
// portable socket path (transport/curl_socket_table.cpp): POSIX socket/close
// (tcp_socket_posix.cpp), Winsock WSASocketW/closesocket (tcp_socket_windows.cpp).

#include <cstdint>

namespace idem::detail {

#ifdef _WIN32
using native_socket = std::uintptr_t;  // Winsock's SOCKET (and so curl_socket_t there)
inline constexpr native_socket invalid_socket = ~native_socket{0};  // INVALID_SOCKET
#else
using native_socket = int;  // a descriptor (curl_socket_t)
inline constexpr native_socket invalid_socket = -1;
#endif

/// Whether `family` is IPv4's or IPv6's address family (AF_INET, AF_INET6).
[[nodiscard]] bool is_ip_family(int family) noexcept;
/// Whether `family` is IPv6's (AF_INET6).
[[nodiscard]] bool is_ipv6_family(int family) noexcept;

/// A new TCP socket of `family` (AF_INET or AF_INET6), never inherited by child processes and
/// usable with the system's asynchronous I/O (Asio); invalid_socket on failure.
[[nodiscard]] native_socket open_tcp_socket(int family) noexcept;

/// Closes `socket`: 0, or -1 on failure (as close(2), what CURLOPT_CLOSESOCKETFUNCTION returns).
int close_socket(native_socket socket) noexcept;

}  // namespace idem::detail
