// Which proxy a transport's requests go through (src/transport/curl_proxy_settings.hpp), decided
// once from the options and the environment as libcurl would decide it for each request. The
// environment here is a table, not the process's: the process's is proved in
// curl_transport_proxy_test.

#include "transport/curl_proxy_settings.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace idem::detail {
namespace {

// An environment of exactly `vars`.
curl_proxy_settings::environment env_of(std::map<std::string, std::string> vars) {
  return [vars = std::move(vars)](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

TEST(CurlProxySettings, NoVariableAndNoOptionIsNoProxy) {
  const auto s = curl_proxy_settings::decide({}, env_of({}));
  EXPECT_EQ(s.http, "");
  EXPECT_EQ(s.https, "");
  EXPECT_EQ(s.no_proxy, "");
  EXPECT_FALSE(s.by_scheme());
}

TEST(CurlProxySettings, EachSchemeHasItsVariableThenAllProxy) {
  const auto s = curl_proxy_settings::decide(
      {}, env_of({{"http_proxy", "http://h:1"}, {"HTTPS_PROXY", "http://s:2"}}));
  EXPECT_EQ(s.http, "http://h:1");
  EXPECT_EQ(s.https, "http://s:2");
  EXPECT_TRUE(s.by_scheme());
  EXPECT_EQ(s.for_url("http://api.example/v1/orders"), "http://h:1");
  EXPECT_EQ(s.for_url("https://api.example/v1/orders"), "http://s:2");
  EXPECT_EQ(s.for_url("HTTPS://api.example/"), "http://s:2");   // schemes have no case
  EXPECT_EQ(s.for_url("api.example/v1/orders"), "http://h:1");  // guessed: http

  const auto all = curl_proxy_settings::decide({}, env_of({{"ALL_PROXY", "socks5h://a:3"}}));
  EXPECT_EQ(all.http, "socks5h://a:3");
  EXPECT_EQ(all.https, "socks5h://a:3");
  EXPECT_FALSE(all.by_scheme());
}

TEST(CurlProxySettings, UpperCaseHttpProxyIsNeverRead) {
  // A CGI program gets a request's `Proxy:` header as HTTP_PROXY: it must not pick the proxy.
  const auto s = curl_proxy_settings::decide({}, env_of({{"HTTP_PROXY", "http://evil:1"}}));
  EXPECT_EQ(s.http, "");
}

TEST(CurlProxySettings, TheFirstVariableSetDecidesAndAnEmptyOneIsUnset) {
  const auto s = curl_proxy_settings::decide({}, env_of({{"http_proxy", ""},
                                                         {"https_proxy", "http://lower:1"},
                                                         {"HTTPS_PROXY", "http://upper:2"},
                                                         {"all_proxy", "http://all:3"},
                                                         {"no_proxy", ""},
                                                         {"NO_PROXY", "b.example"}}));
  EXPECT_EQ(s.http, "http://all:3");  // empty, as curl's getenv has it: all_proxy next
  EXPECT_EQ(s.https, "http://lower:1");
  EXPECT_EQ(s.no_proxy, "b.example");
}

TEST(CurlProxySettings, TheOptionsOverrideTheEnvironment) {
  const auto env = env_of({{"http_proxy", "http://env:1"}, {"no_proxy", "env.example"}});
  const auto url = curl_proxy_settings::decide({.url = "http://opt:2"}, env);
  EXPECT_EQ(url.http, "http://opt:2");
  EXPECT_EQ(url.https, "http://opt:2");
  EXPECT_EQ(url.no_proxy, "env.example");  // the environment's no_proxy still applies

  const auto both =
      curl_proxy_settings::decide({.url = "http://opt:2", .no_proxy = "o.example"}, env);
  EXPECT_EQ(both.no_proxy, "o.example");

  const auto none = curl_proxy_settings::decide({.ignore_environment = true}, env);
  EXPECT_EQ(none.http, "");
  EXPECT_EQ(none.https, "");
  EXPECT_EQ(none.no_proxy, "");
}

}  // namespace
}  // namespace idem::detail
