#pragma once
// Which way the curl transport watches its sockets (private to the idem library).
//
// On Linux (Android included) one epoll set holds them all (curl_epoll_socket_set.hpp); elsewhere,
// or when the build asks for it with IDEM_PORTABLE_SOCKET_WAIT (CMake option of that name, which
// the TSan configuration of CI uses so that the portable path keeps running the transport's
// tests), each socket is an Asio socket of its own (curl_socket_table.hpp). Both have the same
// members; the transport uses whichever `socket_watcher` names.

#if defined(__linux__) && !defined(IDEM_PORTABLE_SOCKET_WAIT)
#include "transport/curl_epoll_socket_set.hpp"
namespace idem::detail {
using socket_watcher = epoll_socket_set;
}  // namespace idem::detail
#else
#include "transport/curl_socket_table.hpp"
namespace idem::detail {
using socket_watcher = socket_table;
}  // namespace idem::detail
#endif
