// Raw bytes through the mock server's real HTTP front end (mock_server/http/http_server.hpp,
// Beast's parser with the server's limits) into the real request handler (app.hpp handle_request)
// over an in-memory database: each input is written to a fresh loopback connection, which then
// half-closes and reads whatever comes back until the server closes. Properties: the server
// neither crashes nor hangs, and whatever it writes back is HTTP/1.x.
//
// The server, its state and its io_context live for the whole run (one loopback listener, no
// port churn); the admin token is empty, so the fuzzer cannot reach /_mock/* and switch on
// faults that would stall later inputs.

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "fuzz/half_close_exchange.hpp"
#include "mock_server/app.hpp"
#include "mock_server/http/http_server.hpp"
#include "mock_server/state/server_state.hpp"

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

idem::mock::server_options fuzz_server_options() {
  idem::mock::server_options o;
  o.db_path = ":memory:";
  o.admin_token = "";  // no token equals it: every /_mock/* request is refused
  o.http.body_limit = 16 * 1024;
  o.http.header_limit = 8 * 1024;
  return o;
}

struct fuzz_server {
  asio::io_context io{1};
  idem::mock::server_state state{fuzz_server_options()};
  idem::mock::http_server http{
      io.get_executor(), tcp::endpoint{asio::ip::address_v4::loopback(), 0},
      [this](idem::mock::request req) { return idem::mock::handle_request(state, std::move(req)); },
      state.options.http};
  fuzz_server() { http.start(); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static auto* server = new fuzz_server;  // lives until the process exits
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string answer;
  bool done = false;
  asio::co_spawn(server->io,
                 idem::fuzz::client_exchange(server->http.local_endpoint(), input, answer, done),
                 asio::detached);
  while (!done || server->http.open_connections() > 0)
    server->io.run_one();
  IDEM_FUZZ_CHECK(answer.empty() || answer.starts_with("HTTP/1."));
  return 0;
}
