// idem::curl_transport and HTTP proxies (curl_transport_options::proxy): the option, the
// environment variables libcurl reads, `no_proxy`, and ignoring the environment, each proved by
// which loopback listener a request reaches. The "proxy" is a tiny listener that answers plain
// requests itself and tunnels CONNECT to the loopback port it names.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <array>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/connect.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/read_until.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/use_awaitable.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "idem/curl_transport.hpp"
#include "idem/transport_error.hpp"
#include "tests/idem/support/tls_test_pki.hpp"

namespace idem {
namespace {

namespace asio = boost::asio;
using asio::ip::tcp;
using namespace std::chrono_literals;

template <class Done>
bool run_until(asio::io_context& io, Done done, std::chrono::steady_clock::duration limit = 30s) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    io.run_one_for(20ms);
    if (io.stopped()) io.restart();
  }
  return true;
}

// Sets (or, with nullptr, unsets) an environment variable for the scope of one test.
class scoped_env {
 public:
  scoped_env(std::string name, const char* value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value != nullptr) {
      ::setenv(name_.c_str(), value, 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ~scoped_env() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

struct listener_state {
  std::vector<std::string> heads;  // every request head read, CONNECTs included
  std::vector<std::shared_ptr<tcp::socket>> sockets;
  std::shared_ptr<tcp::acceptor> acceptor;
};

// An HTTP/1.1 listener on 127.0.0.1:0 that records each request head and answers 200 with its
// own name as the body; a CONNECT is answered 200 and then tunnelled to 127.0.0.1:<its port>.
class loopback_listener {
 public:
  loopback_listener(asio::io_context& io, std::string name)
      : state_(std::make_shared<listener_state>()) {
    state_->acceptor =
        std::make_shared<tcp::acceptor>(io, tcp::endpoint{asio::ip::make_address("127.0.0.1"), 0});
    asio::co_spawn(io, accept_loop(state_, std::move(name)), asio::detached);
  }
  ~loopback_listener() {
    boost::system::error_code ec;
    state_->acceptor->close(ec);
    for (auto& s : state_->sockets)
      s->close(ec);
  }
  loopback_listener(const loopback_listener&) = delete;
  loopback_listener& operator=(const loopback_listener&) = delete;

  [[nodiscard]] std::string url() const {
    return "http://127.0.0.1:" + std::to_string(state_->acceptor->local_endpoint().port());
  }
  [[nodiscard]] const std::vector<std::string>& heads() const { return state_->heads; }

 private:
  static asio::awaitable<void> accept_loop(std::shared_ptr<listener_state> st, std::string name) {
    for (;;) {
      boost::system::error_code ec;
      auto socket = std::make_shared<tcp::socket>(co_await asio::this_coro::executor);
      co_await st->acceptor->async_accept(*socket, asio::redirect_error(asio::use_awaitable, ec));
      if (ec) co_return;
      st->sockets.push_back(socket);
      asio::co_spawn(co_await asio::this_coro::executor, serve(socket, st, name), asio::detached);
    }
  }

  static asio::awaitable<void> pipe(tcp::socket& from, tcp::socket& to) {
    std::array<char, 4096> buf{};
    for (;;) {
      const auto n = co_await from.async_read_some(asio::buffer(buf), asio::use_awaitable);
      co_await asio::async_write(to, asio::buffer(buf.data(), n), asio::use_awaitable);
    }
  }

  static asio::awaitable<void> tunnel(std::shared_ptr<tcp::socket> client,
                                      std::shared_ptr<listener_state> st, std::string head) {
    // "CONNECT host:port HTTP/1.1": whatever the host, the tunnel goes to loopback.
    const std::string target = head.substr(8, head.find(' ', 8) - 8);
    const auto port = static_cast<std::uint16_t>(std::stoi(target.substr(target.rfind(':') + 1)));
    auto upstream = std::make_shared<tcp::socket>(co_await asio::this_coro::executor);
    st->sockets.push_back(upstream);
    co_await upstream->async_connect({asio::ip::make_address("127.0.0.1"), port},
                                     asio::use_awaitable);
    co_await asio::async_write(
        *client, asio::buffer(std::string_view("HTTP/1.1 200 Connection established\r\n\r\n")),
        asio::use_awaitable);
    using namespace asio::experimental::awaitable_operators;
    co_await (pipe(*client, *upstream) || pipe(*upstream, *client));
  }

  static asio::awaitable<void> serve(std::shared_ptr<tcp::socket> socket,
                                     std::shared_ptr<listener_state> st, std::string name) {
    try {
      std::string buffer;
      for (;;) {
        const auto end = co_await asio::async_read_until(*socket, asio::dynamic_buffer(buffer),
                                                         "\r\n\r\n", asio::use_awaitable);
        const std::string head = buffer.substr(0, end);
        buffer.erase(0, end);
        st->heads.push_back(head);
        if (head.starts_with("CONNECT ")) {
          co_await tunnel(socket, st, head);
          co_return;
        }
        std::size_t length = 0;
        if (auto at = head.find("Content-Length: "); at != std::string::npos) {
          length = std::stoul(head.substr(at + 16));
        }
        if (buffer.size() < length) {
          co_await asio::async_read(*socket, asio::dynamic_buffer(buffer),
                                    asio::transfer_exactly(length - buffer.size()),
                                    asio::use_awaitable);
        }
        buffer.erase(0, length);
        const std::string answer =
            "HTTP/1.1 200 OK\r\nContent-Length: " + std::to_string(name.size()) + "\r\n\r\n" + name;
        co_await asio::async_write(*socket, asio::buffer(answer), asio::use_awaitable);
      }
    } catch (const boost::system::system_error&) {
      // the client (or the tunnel's far end) closed its connection
    }
  }

  std::shared_ptr<listener_state> state_;
};

class curl_transport_proxy_test : public ::testing::Test {
 protected:
  transport_result get(curl_transport_options options, std::string url) {
    curl_transport t(io_.get_executor(), std::move(options));
    http_request req;
    req.method = "GET";
    req.url = std::move(url);
    std::optional<transport_result> out;
    t.async_send(std::move(req), [&](transport_result r) { out = std::move(r); });
    EXPECT_TRUE(run_until(io_, [&] { return out.has_value(); })) << "no completion";
    return out.value_or(transport_result{});
  }

  static curl_transport_options via(std::string proxy_url, std::string no_proxy = {},
                                    bool ignore_environment = false) {
    curl_transport_options o;
    o.proxy = {.url = std::move(proxy_url),
               .no_proxy = std::move(no_proxy),
               .ignore_environment = ignore_environment};
    return o;
  }

  asio::io_context io_;
  loopback_listener proxy_{io_, "proxy"};
  loopback_listener origin_{io_, "origin"};

 private:
  // Whatever the machine's environment says, each test starts with no proxy variable set.
  std::vector<std::unique_ptr<scoped_env>> clean_ = [] {
    std::vector<std::unique_ptr<scoped_env>> v;
    for (const char* name : {"http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy",
                             "ALL_PROXY", "no_proxy", "NO_PROXY"}) {
      v.push_back(std::make_unique<scoped_env>(name, nullptr));
    }
    return v;
  }();
};

TEST_F(curl_transport_proxy_test, ProxyOptionSendsTheRequestThroughTheProxy) {
  // The origin's name does not even resolve: only the proxy ever looks at it.
  auto r = get(via(proxy_.url()), "http://origin.invalid/v1/orders?x=1");
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "proxy");
  ASSERT_EQ(proxy_.heads().size(), 1u);
  EXPECT_TRUE(proxy_.heads()[0].starts_with("GET http://origin.invalid/v1/orders?x=1 HTTP/1.1"))
      << proxy_.heads()[0];
}

TEST_F(curl_transport_proxy_test, HttpProxyVariableIsHonouredWithoutTheOption) {
  scoped_env env("http_proxy", proxy_.url().c_str());
  auto r = get({}, origin_.url() + "/");
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "proxy");
  EXPECT_TRUE(origin_.heads().empty());
}

TEST_F(curl_transport_proxy_test, AllProxyVariableIsHonouredToo) {
  scoped_env env("ALL_PROXY", proxy_.url().c_str());
  auto r = get({}, origin_.url() + "/");
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "proxy");
}

TEST_F(curl_transport_proxy_test, ProxyOptionOverridesTheEnvironment) {
  loopback_listener other(io_, "other proxy");
  scoped_env env("http_proxy", other.url().c_str());
  auto r = get(via(proxy_.url()), origin_.url() + "/");
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "proxy");
  EXPECT_TRUE(other.heads().empty());
}

TEST_F(curl_transport_proxy_test, IgnoringTheEnvironmentGoesDirect) {
  scoped_env env("http_proxy", proxy_.url().c_str());
  auto r = get(via({}, {}, /*ignore_environment=*/true), origin_.url() + "/");
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "origin");
  EXPECT_TRUE(proxy_.heads().empty());
}

TEST_F(curl_transport_proxy_test, NoProxyOptionSendsItsHostsDirect) {
  auto r = get(via(proxy_.url(), "localhost,127.0.0.1"), origin_.url() + "/");
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "origin");
  EXPECT_TRUE(proxy_.heads().empty());
}

TEST_F(curl_transport_proxy_test, NoProxyVariableAppliesToTheProxyOption) {
  scoped_env env("no_proxy", "127.0.0.1");
  auto r = get(via(proxy_.url()), origin_.url() + "/");
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "origin");
}

TEST_F(curl_transport_proxy_test, IgnoringTheEnvironmentIgnoresItsNoProxyToo) {
  scoped_env env("no_proxy", "127.0.0.1");
  auto r = get(via(proxy_.url(), {}, /*ignore_environment=*/true), origin_.url() + "/");
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "proxy");
  EXPECT_TRUE(origin_.heads().empty());
}

TEST_F(curl_transport_proxy_test, UnreachableProxyIsNotSent) {
  std::uint16_t dead = 0;
  {
    tcp::acceptor a(io_, {asio::ip::make_address("127.0.0.1"), 0});
    dead = a.local_endpoint().port();
  }
  auto r = get(via("http://127.0.0.1:" + std::to_string(dead)), origin_.url() + "/");
  EXPECT_EQ(r.failure, transport_failure::not_sent);
  EXPECT_EQ(r.ec, transport_errc::connection_refused) << r.ec.message();
  EXPECT_TRUE(origin_.heads().empty());
}

TEST_F(curl_transport_proxy_test, HttpsGoesThroughACheckedConnectTunnel) {
  test::tls::test_pki pki("DNS:api.shop.test");
  test::tls::tls_peer server(io_, pki);
  auto options = via(proxy_.url());
  options.tls.ca_file = pki.ca_file;
  // The name is checked against the server's certificate through the tunnel; only the proxy
  // resolves it (to loopback).
  auto r = get(options, "https://api.shop.test:" + std::to_string(server.port()) + "/");
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "hello");
  ASSERT_EQ(proxy_.heads().size(), 1u);
  EXPECT_TRUE(proxy_.heads()[0].starts_with(
      "CONNECT api.shop.test:" + std::to_string(server.port()) + " HTTP/1.1"))
      << proxy_.heads()[0];
  EXPECT_EQ(server.state().requests, 1);
}

}  // namespace
}  // namespace idem
