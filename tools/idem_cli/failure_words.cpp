#include "idem_cli/failure_words.hpp"

#include "idem/transport_error.hpp"

namespace idem::cli {

std::string failure_words(const outcome& o, std::string_view url, bool with_body) {
  if (o.kind() == outcome_kind::succeeded && o.error().empty()) return {};
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

}  // namespace idem::cli
