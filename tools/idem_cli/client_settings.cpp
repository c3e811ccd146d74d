#include "idem_cli/client_settings.hpp"

#include <algorithm>

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

}  // namespace idem::cli
