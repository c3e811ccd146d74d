#pragma once
// What the SDK must make of any complete HTTP answer, whatever its status, headers and body:
// shared by the client fuzz targets that produce answers (client_answer, client_response).
// Every profile classifies it without throwing, keeping the documented rules (2xx succeeded,
// 5xx unknown, the safety rule for 409/425); `Retry-After` yields a wait within
// [0, max_retry_after]; the IETF table agrees with the profile's reading of the problem type.

#include <chrono>
#include <optional>
#include <string_view>

#include "fuzz/fuzz_check.hpp"
#include "idem/classify.hpp"
#include "idem/server_profile.hpp"
#include "idem/transport.hpp"
#include "policy/retry_after.hpp"

namespace idem::fuzz {

inline void check_answer(const http_response& r,
                         std::chrono::system_clock::time_point received_at) {
  for (const auto& profile :
       {server_profile::ietf(), server_profile::stripe(), server_profile::generic()}) {
    const answer_meaning m = profile.classify(answer_view{r.status, r.headers, r.body});
    if (r.status >= 200 && r.status <= 299) IDEM_FUZZ_CHECK(m.cls == attempt_class::succeeded);
    if (r.status >= 500 && r.status <= 599) IDEM_FUZZ_CHECK(m.cls == attempt_class::unknown);
    if (r.status == 409 || r.status == 425) {
      IDEM_FUZZ_CHECK(m.cls != attempt_class::rejected || m.definite);
    }
    (void)profile.replayed(r.headers);
    (void)problem_name(m.problem);
    const attempt_class table =
        classify(attempt_facts{transport_failure::none, r.status, m.problem});
    if (profile.kind() == server_profile::family::ietf && m.cls != attempt_class::client_bug) {
      IDEM_FUZZ_CHECK(table == m.cls || (r.status >= 400 && r.status <= 499));
    }
    (void)is_retryable(table);
    (void)may_have_executed(table);
    (void)to_string(table);
  }

  const std::string* date = r.header("Date");
  if (date) (void)parse_http_date(*date, received_at);
  if (const std::string* retry_after = r.header("Retry-After")) {
    const auto wait = parse_retry_after(
        *retry_after, date ? std::optional<std::string_view>(*date) : std::nullopt, received_at);
    IDEM_FUZZ_CHECK(wait >= std::chrono::milliseconds::zero() && wait <= max_retry_after);
  }
}

}  // namespace idem::fuzz
