// Request framing of the mock server's HTTP front end (mock_server/http/http_server.hpp) against
// request smuggling. The input drives a generator of pipelined requests on one connection:
// HTTP/1.0 or 1.1, a Host present, missing or repeated, a body framed by Content-Length, by
// chunked (chunk sizes, extensions and a trailer from the input) or by a Transfer-Encoding list
// that RFC 9112 forbids (codings not ending in chunked, chunked twice, chunked under another
// coding, Transfer-Encoding in HTTP/1.0 or next to Content-Length). Every body carries a whole
// request line ("GET /smuggled ...") so that bytes read as a request would show.
//
// The generator knows which requests are well framed. Property: the handler sees exactly the
// well-framed requests that come before the first refused one, in order, and after an HTTP/1.0
// request nothing more (it closes): never a request from inside a body, never one after a
// refusal, and never fewer than the valid ones (a front end too strict to be useful).

#include <fuzzer/FuzzedDataProvider.h>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "fuzz/fuzz_check.hpp"
#include "fuzz/half_close_exchange.hpp"
#include "mock_server/http/http_server.hpp"

namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// Bytes a request's body carries whatever its framing: a request of their own, were they ever
// read as one.
constexpr std::string_view hidden_request = "GET /smuggled HTTP/1.1\r\nHost: t\r\n\r\n";

enum class framing : std::uint8_t {
  none,
  content_length,
  chunked,
  chunked_mixed_case,
  not_ending_in_chunked,  // gzip / identity / "chunked, identity"
  chunked_twice,
  chunked_under_gzip,  // "gzip, chunked": 501
  chunked_and_length,
  last = chunked_and_length,
};
enum class host_line : std::uint8_t { one, missing, twice, last = twice };

struct generated {
  std::string bytes;
  std::vector<std::string> expected;  // the targets the handler must see, in order
};

std::string chunked_body(FuzzedDataProvider& in, const std::string& data) {
  std::string out;
  std::size_t at = 0;
  while (at < data.size()) {
    const std::size_t n = in.ConsumeIntegralInRange<std::size_t>(1, data.size() - at);
    char size_line[24];
    std::snprintf(size_line, sizeof size_line, "%zx", n);
    out += size_line;
    if (in.ConsumeBool()) out += ";ext=" + std::to_string(in.ConsumeIntegral<std::uint8_t>());
    out += "\r\n" + data.substr(at, n) + "\r\n";
    at += n;
  }
  out += "0\r\n";
  if (in.ConsumeBool())
    out += "X-Trailer: " + std::to_string(in.ConsumeIntegral<std::uint8_t>()) + "\r\n";
  return out + "\r\n";
}

generated generate(FuzzedDataProvider& in) {
  generated g;
  bool still_served = true;  // no refusal and no HTTP/1.0 request so far
  const int count = in.ConsumeIntegralInRange(1, 4);
  for (int i = 0; i < count; ++i) {
    const bool http10 = in.ConsumeIntegralInRange(0, 7) == 0;
    const auto how =
        static_cast<framing>(in.ConsumeIntegralInRange<int>(0, static_cast<int>(framing::last)));
    // Mostly one Host, so that the framing cases are what the fuzzer varies.
    const bool vary_host = in.ConsumeIntegralInRange(0, 3) == 0;
    const auto host = static_cast<host_line>(
        vary_host ? in.ConsumeIntegralInRange<int>(0, static_cast<int>(host_line::last)) : 0);
    const std::string target = "/r/" + std::to_string(i);
    const std::string data = in.ConsumeRandomLengthString(256) + std::string(hidden_request) +
                             in.ConsumeRandomLengthString(64);

    std::string head = (how == framing::none ? "GET " : "POST ") + target +
                       (http10 ? " HTTP/1.0\r\n" : " HTTP/1.1\r\n");
    if (host != host_line::missing) head += "Host: t\r\n";
    if (host == host_line::twice) head += "Host: u\r\n";
    std::string body;
    bool framed = true;
    switch (how) {
      case framing::none:
        break;
      case framing::content_length:
        head += "Content-Length: " + std::to_string(data.size()) + "\r\n";
        body = data;
        break;
      case framing::chunked:
      case framing::chunked_mixed_case:
        head += how == framing::chunked ? "Transfer-Encoding: chunked\r\n"
                                        : "Transfer-Encoding: ChUnKeD\r\n";
        body = chunked_body(in, data);
        framed = !http10;
        break;
      case framing::not_ending_in_chunked: {
        static constexpr const char* codings[] = {"gzip", "identity", "chunked, identity", ""};
        head +=
            std::string("Transfer-Encoding: ") + codings[in.ConsumeIntegralInRange(0, 3)] + "\r\n";
        body = data;
        framed = false;
        break;
      }
      case framing::chunked_twice:
        head += in.ConsumeBool() ? "Transfer-Encoding: chunked, chunked\r\n"
                                 : "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n";
        body = chunked_body(in, data);
        framed = false;
        break;
      case framing::chunked_under_gzip:
        head += "Transfer-Encoding: gzip, chunked\r\n";
        body = chunked_body(in, data);
        framed = false;
        break;
      case framing::chunked_and_length:
        head +=
            "Content-Length: " + std::to_string(data.size()) + "\r\nTransfer-Encoding: chunked\r\n";
        body = chunked_body(in, data);
        framed = false;
        break;
    }
    const bool host_ok = host == host_line::one || (host == host_line::missing && http10);
    g.bytes += head + "\r\n" + body;
    if (still_served && framed && host_ok) g.expected.push_back(target);
    if (!framed || !host_ok || http10) still_served = false;
  }
  return g;
}

struct framing_server {
  asio::io_context io{1};
  std::vector<std::string> seen;
  idem::mock::http_server http{
      io.get_executor(), tcp::endpoint{asio::ip::address_v4::loopback(), 0},
      [this](idem::mock::request req) -> asio::awaitable<idem::mock::reply> {
        seen.push_back(req.target);
        idem::mock::response res;
        res.status = 200;
        co_return idem::mock::reply{.res = std::move(res)};
      },
      idem::mock::http_server_options{.read_timeout = std::chrono::seconds(5)}};
  framing_server() { http.start(); }
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static auto* server = new framing_server;  // lives until the process exits
  FuzzedDataProvider in(data, size);
  const generated g = generate(in);
  server->seen.clear();
  std::string answer;
  bool done = false;
  asio::co_spawn(server->io,
                 idem::fuzz::client_exchange(server->http.local_endpoint(), g.bytes, answer, done),
                 asio::detached);
  while (!done || server->http.open_connections() > 0)
    server->io.run_one();
  if (server->seen != g.expected) {
    std::fprintf(stderr, "sent:\n%s\nexpected %zu requests, the handler saw %zu:\n",
                 g.bytes.c_str(), g.expected.size(), server->seen.size());
    for (const auto& t : server->seen)
      std::fprintf(stderr, "  %s\n", t.c_str());
  }
  IDEM_FUZZ_CHECK(server->seen == g.expected);
  return 0;
}
