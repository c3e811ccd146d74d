#include "tests/support/servers/fault_proxy.hpp"

#include <atomic>
#include <boost/asio/as_tuple.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>
#include <optional>
#include <string>

namespace idem::kit {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;

namespace {
constexpr auto use_nothrow = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t answer_body_limit = 16 * 1024 * 1024;
}  // namespace

std::string_view to_string(proxy_fault f) noexcept {
  switch (f) {
    case proxy_fault::none:
      return "none";
    case proxy_fault::drop_after_answer:
      return "drop_after_answer";
    case proxy_fault::drop_while_running:
      return "drop_while_running";
    case proxy_fault::delay_answer:
      return "delay_answer";
  }
  return "none";
}

fault_plan::fault_plan(const fault_proxy_options& options)
    : drop_after_answer_(options.drop_after_answer),
      drop_while_running_(options.drop_while_running),
      delay_answer_(options.delay_answer),
      rng_(options.seed) {}

proxy_fault fault_plan::next() {
  // 53 random bits as a double in [0, 1): the same on every standard library, unlike
  // std::uniform_real_distribution.
  const double r = static_cast<double>(rng_() >> 11) * 0x1.0p-53;
  double edge = drop_after_answer_;
  if (r < edge) return proxy_fault::drop_after_answer;
  edge += drop_while_running_;
  if (r < edge) return proxy_fault::drop_while_running;
  edge += delay_answer_;
  if (r < edge) return proxy_fault::delay_answer;
  return proxy_fault::none;
}

struct fault_proxy::state {
  state(asio::io_context& io, fault_proxy_options o)
      : options(o),
        acceptor(io, tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0}),
        upstream(asio::ip::make_address("127.0.0.1"), o.upstream_port),
        plan(o) {}

  const fault_proxy_options options;
  tcp::acceptor acceptor;
  const tcp::endpoint upstream;
  fault_plan plan;  // only touched on the proxy's thread

  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> drop_after_answer{0};
  std::atomic<std::uint64_t> drop_while_running{0};
  std::atomic<std::uint64_t> delay_answer{0};
  std::atomic<std::uint64_t> answers_dropped{0};
  std::atomic<std::uint64_t> upstream_errors{0};
  std::atomic<std::uint64_t> in_flight{0};

  proxy_fault choose(const http::request<http::string_body>& req) {
    requests.fetch_add(1);
    const bool read = req.method() == http::verb::get || req.method() == http::verb::head;
    if (read && !options.faults_on_reads) return proxy_fault::none;
    const auto f = plan.next();
    switch (f) {
      case proxy_fault::drop_after_answer:
        drop_after_answer.fetch_add(1);
        break;
      case proxy_fault::drop_while_running:
        drop_while_running.fetch_add(1);
        break;
      case proxy_fault::delay_answer:
        delay_answer.fetch_add(1);
        break;
      case proxy_fault::none:
        break;
    }
    return f;
  }

  static asio::awaitable<void> accept_loop(std::shared_ptr<state> self);
  static asio::awaitable<void> serve(std::shared_ptr<state> self, tcp::socket client);
};

namespace {

// The upstream's answer, read to its end; nullopt when it could not be had (reset, malformed).
asio::awaitable<std::optional<http::response<http::string_body>>> read_answer(
    tcp::socket& upstream) {
  boost::beast::flat_buffer buffer;
  http::response_parser<http::string_body> parser;
  parser.body_limit(answer_body_limit);
  auto [ec, n] = co_await http::async_read(upstream, buffer, parser, use_nothrow);
  if (ec) co_return std::nullopt;
  co_return parser.release();
}

http::response<http::string_body> bad_gateway(unsigned version) {
  http::response<http::string_body> res{http::status::bad_gateway, version};
  res.set(http::field::content_type, "text/plain");
  res.body() = "fault_proxy: the upstream did not answer\n";
  return res;
}

void close(tcp::socket& s) {
  boost::system::error_code ignored;
  s.shutdown(tcp::socket::shutdown_both, ignored);
  s.close(ignored);
}

}  // namespace

asio::awaitable<void> fault_proxy::state::accept_loop(std::shared_ptr<state> self) {
  while (self->acceptor.is_open()) {
    auto [ec, client] = co_await self->acceptor.async_accept(use_nothrow);
    if (ec == asio::error::operation_aborted) co_return;
    if (ec) continue;
    asio::co_spawn(self->acceptor.get_executor(), serve(self, std::move(client)), asio::detached);
  }
}

// Plain statements around every co_await: GCC 12 miscompiles co_await inside a conditional
// expression or a short-circuit condition.
asio::awaitable<void> fault_proxy::state::serve(std::shared_ptr<state> self, tcp::socket client) {
  const auto ex = client.get_executor();
  boost::beast::flat_buffer buffer;
  while (true) {
    http::request_parser<http::string_body> parser;
    auto [header_ec, header_n] =
        co_await http::async_read_header(client, buffer, parser, use_nothrow);
    if (header_ec) co_return;  // the client closed or sent garbage
    if (parser.get()[http::field::expect] == "100-continue") {
      http::response<http::empty_body> go_on{http::status::continue_, parser.get().version()};
      auto [continue_ec, continue_n] = co_await http::async_write(client, go_on, use_nothrow);
      if (continue_ec) co_return;
    }
    auto [body_ec, body_n] = co_await http::async_read(client, buffer, parser, use_nothrow);
    if (body_ec) co_return;
    auto req = parser.release();
    const bool keep_alive = req.keep_alive();
    const unsigned version = req.version();
    const auto fault = self->choose(req);

    // Whole requests go upstream: no Expect (the body is already here), one request per
    // connection so that a stale keep-alive connection can never lose one.
    req.erase(http::field::expect);
    req.keep_alive(false);
    self->in_flight.fetch_add(1);
    tcp::socket upstream{ex};
    bool sent = false;
    auto [connect_ec] = co_await upstream.async_connect(self->upstream, use_nothrow);
    if (!connect_ec) {
      auto [write_ec, written] = co_await http::async_write(upstream, req, use_nothrow);
      sent = !write_ec;
    }
    if (fault == proxy_fault::drop_while_running) {
      close(client);  // before the answer can have been read: the server is still at it
    }
    std::optional<http::response<http::string_body>> answer;
    if (sent) answer = co_await read_answer(upstream);
    close(upstream);
    self->in_flight.fetch_sub(1);

    if (fault == proxy_fault::drop_while_running) {
      (answer ? self->answers_dropped : self->upstream_errors).fetch_add(1);
      co_return;
    }
    if (!answer) {
      self->upstream_errors.fetch_add(1);
      answer = bad_gateway(version);
    } else if (fault == proxy_fault::drop_after_answer) {
      self->answers_dropped.fetch_add(1);
      close(client);
      co_return;
    } else if (fault == proxy_fault::delay_answer) {
      asio::steady_timer hold{ex, self->options.delay};
      auto [hold_ec] = co_await hold.async_wait(use_nothrow);
      (void)hold_ec;  // cancelled only when the proxy stops
    }
    answer->version(version);
    answer->keep_alive(keep_alive);
    answer->prepare_payload();
    auto [answer_ec, answer_n] = co_await http::async_write(client, *answer, use_nothrow);
    if (answer_ec || !keep_alive) {
      close(client);
      co_return;
    }
  }
}

fault_proxy::fault_proxy(fault_proxy_options options)
    : state_(std::make_shared<state>(io_, options)) {
  port_ = state_->acceptor.local_endpoint().port();
  asio::co_spawn(io_, state::accept_loop(state_), asio::detached);
  thread_ = std::thread([this] { io_.run(); });
}

fault_proxy::~fault_proxy() {
  // Connections still open (a client's keep-alive, an answer being read) end with the
  // io_context: its destruction destroys the suspended coroutines and their sockets.
  asio::post(io_, [this] {
    boost::system::error_code ignored;
    state_->acceptor.close(ignored);
    io_.stop();
  });
  thread_.join();
}

fault_proxy_counters fault_proxy::counters() const noexcept {
  return {.requests = state_->requests.load(),
          .drop_after_answer = state_->drop_after_answer.load(),
          .drop_while_running = state_->drop_while_running.load(),
          .delay_answer = state_->delay_answer.load(),
          .answers_dropped = state_->answers_dropped.load(),
          .upstream_errors = state_->upstream_errors.load(),
          .in_flight = state_->in_flight.load()};
}

}  // namespace idem::kit
