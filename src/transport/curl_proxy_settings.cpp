#include "transport/curl_proxy_settings.hpp"

#include <cstdlib>
#include <initializer_list>

#include "util/http_facts.hpp"

namespace idem::detail {
namespace {

// The value of the first of `names` that is set and not empty ("" when none is): curl's
// getenv (lib/getenv.c) takes an empty variable for an unset one.
std::string first_set(const curl_proxy_settings::environment& env,
                      std::initializer_list<const char*> names) {
  for (const char* name : names) {
    if (const char* value = env(name); value != nullptr && *value != '\0') return value;
  }
  return {};
}

}  // namespace

curl_proxy_settings curl_proxy_settings::decide(const proxy_options& options,
                                                const environment& env) {
  curl_proxy_settings s;
  if (!options.url.empty()) {
    s.http = s.https = options.url;
  } else if (!options.ignore_environment) {
    s.http = first_set(env, {"http_proxy", "all_proxy", "ALL_PROXY"});
    s.https = first_set(env, {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"});
  }
  if (!options.no_proxy.empty()) {
    s.no_proxy = options.no_proxy;
  } else if (!options.ignore_environment) {
    s.no_proxy = first_set(env, {"no_proxy", "NO_PROXY"});
  }
  return s;
}

curl_proxy_settings curl_proxy_settings::decide(const proxy_options& options) {
  return decide(options, [](const char* name) -> const char* { return std::getenv(name); });
}

const std::string& curl_proxy_settings::for_url(std::string_view url) const noexcept {
  constexpr std::string_view https_scheme = "https:";
  return ascii_iequals(url.substr(0, https_scheme.size()), https_scheme) ? https : http;
}

}  // namespace idem::detail
