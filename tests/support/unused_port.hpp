#pragma once
// A loopback port where nothing listens, for the "connection refused" tests.

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstdint>

namespace idem::kit {

/// A port on 127.0.0.1 where nothing listens: bound once by the OS (so it was free), then
/// released.
inline std::uint16_t unused_port() {
  boost::asio::io_context io;
  boost::asio::ip::tcp::acceptor a{
      io, boost::asio::ip::tcp::endpoint{boost::asio::ip::make_address("127.0.0.1"), 0}};
  return a.local_endpoint().port();
}

}  // namespace idem::kit
