// idem::curl_transport and HTTP proxies (curl_transport_options::proxy): the option, the
// environment variables libcurl reads, `no_proxy`, and ignoring the environment, each proved by
// which loopback listener a request reaches. The "proxy" is a recording listener
// (tests/support/servers/recording_listener.hpp) that answers plain requests itself and tunnels
// CONNECT to the loopback port it names.

#include <gtest/gtest.h>
#include <stdlib.h>

#include <boost/asio/io_context.hpp>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "idem/curl_transport.hpp"
#include "idem/transport_error.hpp"
#include "tests/idem/support/send_and_wait.hpp"
#include "tests/idem/support/tls_test_pki.hpp"
#include "tests/support/servers/recording_listener.hpp"
#include "tests/support/unused_port.hpp"

namespace idem {
namespace {

namespace asio = boost::asio;
using kit::recording_listener;

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

// A loopback listener that answers every plain request 200 with `name` as the body, so the
// body tells which listener a request reached.
recording_listener named(std::string name, kit::recording_listener_options options = {}) {
  return recording_listener(
      [name = std::move(name)](const std::string&) { return kit::http_answer(200, name); },
      options);
}

const kit::recording_listener_options as_proxy{.tunnel_connect = true};

class curl_transport_proxy_test : public ::testing::Test {
 protected:
  transport_result get(curl_transport_options options, std::string url) {
    curl_transport t(io_.get_executor(), std::move(options));
    return test::send_and_wait(io_, t, test::get_request(std::move(url)));
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
  recording_listener proxy_ = named("proxy", as_proxy);
  recording_listener origin_ = named("origin");

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

TEST_F(curl_transport_proxy_test, TheEnvironmentIsReadWhenTheTransportIsMade) {
  // Read once (libcurl alone reads it for every request, and races with a setenv on another
  // thread): a variable set later is the next transport's, not this one's.
  curl_transport t(io_.get_executor());
  scoped_env env("http_proxy", proxy_.url().c_str());
  auto r = test::send_and_wait(io_, t, test::get_request(origin_.url() + "/"));
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "origin");
  EXPECT_TRUE(proxy_.heads().empty());

  auto next = get({}, origin_.url() + "/");
  ASSERT_FALSE(next.ec) << next.ec.message();
  EXPECT_EQ(next.response.body, "proxy");
}

TEST_F(curl_transport_proxy_test, EachRequestTakesItsSchemesProxy) {
  // http:// and https:// proxies differ: one transport, its kept handle, one request of each.
  test::tls::test_pki pki("DNS:api.shop.test");
  test::tls::tls_peer server(io_, pki);
  recording_listener tunnel = named("tunnel", as_proxy);
  scoped_env http("http_proxy", proxy_.url().c_str());
  scoped_env https("https_proxy", tunnel.url().c_str());
  curl_transport_options options;
  options.tls.ca_file = pki.ca_file;
  curl_transport t(io_.get_executor(), options);
  const std::string secure = "https://api.shop.test:" + std::to_string(server.port()) + "/";
  for (int round = 0; round < 2; ++round) {
    auto plain = test::send_and_wait(io_, t, test::get_request("http://origin.invalid/x"));
    ASSERT_FALSE(plain.ec) << plain.ec.message();
    EXPECT_EQ(plain.response.body, "proxy");
    auto tls = test::send_and_wait(io_, t, test::get_request(secure));
    ASSERT_FALSE(tls.ec) << tls.ec.message();
    EXPECT_EQ(tls.response.body, "hello");
  }
  EXPECT_EQ(proxy_.heads().size(), 2u);
  ASSERT_GE(tunnel.heads().size(), 1u);  // the tunnel's connection may be kept for round two
  EXPECT_TRUE(tunnel.heads()[0].starts_with("CONNECT api.shop.test:")) << tunnel.heads()[0];
  EXPECT_EQ(server.state().requests, 2);
}

TEST_F(curl_transport_proxy_test, AnEmptyVariableIsUnsetAsLibcurlReadsIt) {
  // As libcurl itself reads the environment (its getenv takes "" for unset): an empty
  // http_proxy does not stop all_proxy.
  scoped_env empty("http_proxy", "");
  scoped_env all("all_proxy", proxy_.url().c_str());
  auto r = get({}, origin_.url() + "/");
  ASSERT_FALSE(r.ec) << r.ec.message();
  EXPECT_EQ(r.response.body, "proxy");
}

TEST_F(curl_transport_proxy_test, ProxyOptionOverridesTheEnvironment) {
  recording_listener other = named("other proxy", as_proxy);
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
  const auto dead = kit::unused_port();
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
