#pragma once
// Which proxy a transport's requests go through, decided once when the transport is made
// (private to the idem library).
//
// Left to itself, libcurl reads the proxy variables of the environment for every transfer:
// five getenv calls a request (about 1,800 instructions of 93,000 against a loopback server,
// more in a larger environment), and a read that races with any thread's setenv. Read once
// here, as Go's net/http reads them once, and handed to curl as options (CURLOPT_PROXY,
// CURLOPT_NOPROXY: curl reads no variable while both are set, "" meaning none), they mean
// what curl made of them (lib/url.c, detect_proxy) at the time the transport was made.

#include <functional>
#include <string>
#include <string_view>

#include "idem/curl_transport.hpp"

namespace idem::detail {

struct curl_proxy_settings {
  /// What a variable of the environment is, nullptr if unset (std::getenv by default).
  using environment = std::function<const char*(const char*)>;

  std::string http;      ///< the proxy of http:// URLs; "" for none
  std::string https;     ///< the proxy of https:// URLs; "" for none
  std::string no_proxy;  ///< the hosts that go direct; "" for none

  /// From `options` (idem/curl_transport.hpp, proxy_options) and, unless they say otherwise,
  /// the variables libcurl reads: `http_proxy` for http:// (lower case only),
  /// `https_proxy`/`HTTPS_PROXY` for https://, then `all_proxy`/`ALL_PROXY` for both, and
  /// `no_proxy`/`NO_PROXY`. The first one set decides; an empty one counts as unset, as in
  /// curl.
  [[nodiscard]] static curl_proxy_settings decide(const proxy_options& options,
                                                  const environment& env);
  [[nodiscard]] static curl_proxy_settings decide(const proxy_options& options);

  /// Whether http:// and https:// URLs go through different proxies (then each request sets
  /// its own; otherwise the setting is the easy handle's, made once).
  [[nodiscard]] bool by_scheme() const noexcept { return http != https; }
  /// The proxy of `url` (an https: URL's, in any case; any other scheme's is http://'s:
  /// CURLOPT_PROTOCOLS_STR refuses the schemes that are neither).
  [[nodiscard]] const std::string& for_url(std::string_view url) const noexcept;
};

}  // namespace idem::detail
