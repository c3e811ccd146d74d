#include "tests/support/servers/recording_listener.hpp"

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <condition_variable>
#include <mutex>
#include <string_view>

#include "tests/support/http/read_http_request.hpp"

namespace idem::kit {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

std::string http_answer(int status, const std::string& body) {
  return "HTTP/1.1 " + std::to_string(status) + " X\r\nContent-Type: application/json\r\n" +
         "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

struct recording_listener::state {
  state(answer_policy p, recording_listener_options o) : policy(std::move(p)), options(o) {}

  const answer_policy policy;
  const recording_listener_options options;
  mutable std::mutex mutex;
  std::condition_variable arrived;
  std::vector<std::string> heads;

  void record(const std::string& head) {
    {
      std::lock_guard lock(mutex);
      heads.push_back(head);
    }
    arrived.notify_all();
  }

  static asio::awaitable<void> accept_loop(std::shared_ptr<tcp::acceptor> acceptor,
                                           std::shared_ptr<state> self);
  static asio::awaitable<void> serve(std::shared_ptr<tcp::socket> socket,
                                     std::shared_ptr<state> self);
};

namespace {

asio::awaitable<void> pipe(tcp::socket& from, tcp::socket& to) {
  std::array<char, 4096> buf{};
  for (;;) {
    const auto n = co_await from.async_read_some(asio::buffer(buf), asio::use_awaitable);
    co_await asio::async_write(to, asio::buffer(buf.data(), n), asio::use_awaitable);
  }
}

// "CONNECT host:port HTTP/1.1": whatever the host, the tunnel goes to loopback.
asio::awaitable<void> tunnel(tcp::socket& client, const std::string& head) {
  const std::string target = head.substr(8, head.find(' ', 8) - 8);
  const auto port = static_cast<std::uint16_t>(std::stoi(target.substr(target.rfind(':') + 1)));
  tcp::socket upstream(co_await asio::this_coro::executor);
  co_await upstream.async_connect({asio::ip::make_address("127.0.0.1"), port}, asio::use_awaitable);
  co_await asio::async_write(
      client, asio::buffer(std::string_view("HTTP/1.1 200 Connection established\r\n\r\n")),
      asio::use_awaitable);
  using namespace asio::experimental::awaitable_operators;
  co_await (pipe(client, upstream) || pipe(upstream, client));
}

}  // namespace

asio::awaitable<void> recording_listener::state::accept_loop(
    std::shared_ptr<tcp::acceptor> acceptor, std::shared_ptr<state> self) {
  for (;;) {
    auto socket = std::make_shared<tcp::socket>(co_await asio::this_coro::executor);
    boost::system::error_code ec;
    co_await acceptor->async_accept(*socket, asio::redirect_error(asio::use_awaitable, ec));
    if (ec) co_return;
    asio::co_spawn(co_await asio::this_coro::executor, serve(socket, self), asio::detached);
  }
}

asio::awaitable<void> recording_listener::state::serve(std::shared_ptr<tcp::socket> socket,
                                                       std::shared_ptr<state> self) {
  try {
    std::string buffer;
    for (std::size_t on_connection = 1;; ++on_connection) {
      const auto request = co_await read_http_request(*socket, buffer);
      self->record(request.head);
      if (self->options.close_unanswered &&
          self->options.close_unanswered(on_connection, request.head)) {
        boost::system::error_code ignored;
        socket->close(ignored);
        co_return;
      }
      if (self->options.tunnel_connect && request.head.starts_with("CONNECT ")) {
        co_await tunnel(*socket, request.head);
        co_return;
      }
      const auto answer = self->policy(request.head);
      if (!answer) {
        // Held: read until the client gives up on it.
        char byte = 0;
        for (;;)
          co_await socket->async_read_some(asio::buffer(&byte, 1), asio::use_awaitable);
      }
      co_await asio::async_write(*socket, asio::buffer(*answer), asio::use_awaitable);
    }
  } catch (const boost::system::system_error&) {
    // the client (or a tunnel's far end) closed its connection
  }
}

recording_listener::recording_listener(answer_policy policy, recording_listener_options options)
    : state_(std::make_shared<state>(std::move(policy), options)) {
  auto acceptor = std::make_shared<tcp::acceptor>(
      bg_.io(), tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0});
  port_ = acceptor->local_endpoint().port();
  asio::co_spawn(bg_.io(), state::accept_loop(std::move(acceptor), state_), asio::detached);
}

std::string recording_listener::url() const {
  return "http://127.0.0.1:" + std::to_string(port_);
}

std::vector<std::string> recording_listener::heads() const {
  std::lock_guard lock(state_->mutex);
  return state_->heads;
}

std::vector<std::string> recording_listener::heads_starting(const std::string& prefix) const {
  std::vector<std::string> out;
  for (auto& h : heads())
    if (h.starts_with(prefix)) out.push_back(h);
  return out;
}

bool recording_listener::wait_for_requests(std::size_t n, std::chrono::milliseconds limit) const {
  std::unique_lock lock(state_->mutex);
  return state_->arrived.wait_for(lock, limit, [&] { return state_->heads.size() >= n; });
}

}  // namespace idem::kit
