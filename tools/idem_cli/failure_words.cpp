#include "idem_cli/failure_words.hpp"

#include "idem/transport_error.hpp"

namespace idem::cli {
namespace {

// What the writes got (outcome::explain), with the CLI's hints.
std::string write_words(const outcome& o, std::string_view url, bool with_body) {
  std::string words = o.explain(with_body ? 200 : 0);
  if (!o.error().empty() || o.status() != 0 || !o.last_transport_error()) return words;
  if (o.last_transport_error() == transport_errc::certificate_rejected) {
    // The library names its option; on this command line the fix is a flag.
    words =
        "TLS failed: the server's certificate is not trusted or not for this host (--cacert "
        "FILE trusts a private CA), or the client certificate or key cannot be used";
  }
  // Where it failed helps with a network error; a cancellation happened here, not there.
  if (!url.empty() && o.last_transport_error() != std::errc::operation_canceled)
    words.append(" (").append(url).append(")");
  return words;
}

}  // namespace

std::string failure_words(const outcome& o, std::string_view url, bool with_body,
                          std::string_view lookup_url) {
  if (o.kind() == outcome_kind::succeeded && o.error().empty()) return {};
  std::string lookup = o.explain_lookup(lookup_url);
  if (lookup.empty()) return write_words(o, url, with_body);
  // The lookup and the writes apart: a write's 409 and the lookup's timeout are two facts.
  if (o.error().empty() && o.status() == 0 && !o.last_transport_error()) return lookup;
  return lookup + "; last write: " + write_words(o, url, with_body);
}

std::string lookup_url_words(std::string_view base, const business_lookup& l,
                             const nlohmann::json& payload) {
  std::string url = l.url;
  if (!payload.is_null()) url = expand_lookup_url(l, payload).value_or(l.url);
  if (url.find("://") != std::string::npos) return url;
  std::string out(base);
  if (!out.empty() && out.back() == '/') out.pop_back();
  if (!url.starts_with('/')) out.push_back('/');
  return out + url;
}

}  // namespace idem::cli
