// Raw response bytes through the SDK's real transport (idem/curl_transport.hpp: libcurl's status
// line and header parsing, the transport's header callback with its folding and 1xx handling,
// body limits, truncated bodies) and on into what the client makes of the answer
// (fuzz/client_answer_checks.hpp). A loopback peer reads each POST and answers it with the input
// as is, then closes.
//
// Properties, besides those of every answer: a request that the peer has read is never reported
// `not_sent`; a failure always names its error; an answer has a status.

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz/client_answer_checks.hpp"
#include "fuzz/fuzz_check.hpp"
#include "fuzz/half_close_exchange.hpp"
#include "idem/curl_transport.hpp"
#include "tests/support/http/read_http_request.hpp"

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using namespace std::chrono_literals;
constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);

struct loopback_peer {
  asio::io_context io{1};
  tcp::acceptor acceptor{io, tcp::endpoint{asio::ip::address_v4::loopback(), 0}};
};

// Answers one connection's request with `answer`, half-closes, and waits for the client to go.
asio::awaitable<void> answer_once(tcp::acceptor& acceptor, std::string_view answer, bool& read,
                                  bool& done) {
  auto [accept_error, socket] = co_await acceptor.async_accept(use_nothrow);
  IDEM_FUZZ_CHECK(!accept_error);
  try {
    std::string buffer;
    (void)co_await idem::kit::read_http_request(socket, buffer);
    read = true;
    (void)co_await idem::fuzz::write_then_drain(socket, answer);
  } catch (const boost::system::system_error&) {  // the client went away first
  }
  done = true;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static auto* peer = new loopback_peer;  // lives until the process exits
  peer->io.restart();  // the last input's work ran out, which stopped the io_context
  const std::string_view answer(reinterpret_cast<const char*>(data), size);
  bool read = false;
  bool peer_done = false;
  asio::co_spawn(peer->io, answer_once(peer->acceptor, answer, read, peer_done), asio::detached);

  std::optional<idem::transport_result> result;
  {
    // A transport per input: no connection outlives its input.
    idem::curl_transport transport(peer->io.get_executor(),
                                   {.max_response_bytes = 16 * 1024, .connect_timeout = 5s});
    const auto port = peer->acceptor.local_endpoint().port();
    transport.async_send(
        idem::http_request{.method = "POST",
                           .url = "http://127.0.0.1:" + std::to_string(port) + "/v1/orders",
                           .headers = {{"Content-Type", "application/json"}},
                           .body = R"({"merchant_order_id":"m-1"})",
                           .timeout = 10s},
        [&result](idem::transport_result r) { result = std::move(r); });
    while (!result)
      IDEM_FUZZ_CHECK(peer->io.run_one() == 1);
  }
  while (!peer_done)
    IDEM_FUZZ_CHECK(peer->io.run_one() == 1);

  const auto received_at = std::chrono::system_clock::time_point{} + 1'750'000'000s;
  if (result->failure == idem::transport_failure::none) {
    IDEM_FUZZ_CHECK(!result->ec);
    idem::fuzz::check_answer(result->response, received_at);
  } else {
    IDEM_FUZZ_CHECK(static_cast<bool>(result->ec));
    if (read) IDEM_FUZZ_CHECK(result->failure == idem::transport_failure::unknown);
  }
  return 0;
}
