#include "idem_cli/client_settings.hpp"

#include <algorithm>

#include "idem/server_profile.hpp"

namespace idem::cli {

client_options client_settings(const std::string& url, const std::string& token,
                               std::chrono::milliseconds deadline) {
  client_options o;
  o.base_url = url;
  o.credentials = bearer_token{token};
  o.deadline.total = deadline;
  o.deadline.lookup_reserve = std::min(o.deadline.lookup_reserve, deadline / 10);
  o.deadline.attempt_timeout = std::min(o.deadline.attempt_timeout, deadline);
  return o;
}

client_options client_settings(const common_args& args) {
  client_options o = client_settings(args.url, args.token, args.deadline);
  if (args.attempt_timeout.count() > 0) {
    o.deadline.attempt_timeout = std::min(args.attempt_timeout, args.deadline);
  }
  // The parser accepted the name, so it is known.
  o.profile = server_profile::by_name(args.profile).value_or(server_profile::ietf());
  o.headers = args.headers;
  o.key_header = args.key_header;
  o.transport_options.tls.ca_file = args.cacert;
  return o;
}

}  // namespace idem::cli
