#include "intent/outcome_reason.hpp"

#include "idem/classify.hpp"
#include "idem/transport_error.hpp"

namespace idem::detail {

errc reason_of_transport(std::error_code ec) noexcept {
  if (ec == std::errc::operation_canceled) return errc::cancelled;
  if (ec.category() != transport_category()) return errc::transport_failed;
  switch (static_cast<transport_errc>(ec.value())) {
    case transport_errc::resolve_failed:
      return errc::dns_failed;
    case transport_errc::connection_refused:
      return errc::connection_refused;
    case transport_errc::connect_failed:
      return errc::connect_failed;
    case transport_errc::tls_failed:
      return errc::tls_failed;
    case transport_errc::certificate_rejected:
      return errc::certificate_rejected;
    case transport_errc::timed_out:
      return errc::attempt_timed_out;
    case transport_errc::connection_lost:
    case transport_errc::connections_reset:
      return errc::connection_lost;
    case transport_errc::invalid_request:
      return errc::invalid_request;
    default:
      return errc::transport_failed;
  }
}

errc reason_of_status(int status) noexcept {
  if (status == 429) return errc::rate_limited;
  // A 202 still being polled, or a 409/425 the profile read as in progress.
  if (status == 202 || status == 409 || status == 425) return errc::still_in_progress;
  if (status >= 400 && status <= 499 && status != 408) return errc::rejected;
  return errc::server_error;
}

std::optional<errc> reason_named(std::string_view error) noexcept {
  if (error.empty()) return std::nullopt;
  for (int v = static_cast<int>(errc::connection_refused); v <= static_cast<int>(errc::no_answer);
       ++v) {
    if (to_string(static_cast<errc>(v)) == error) return static_cast<errc>(v);
  }
  return std::nullopt;
}

std::error_code reason_of_fields(const outcome_fields& f) {
  if (f.kind == outcome_kind::succeeded) {
    if (f.matching_records > 1) return errc::duplicates_found;
    return {};
  }
  if (auto named = reason_named(f.error)) return *named;
  if (!f.error.empty()) return errc::idempotency_key_misuse;  // a client bug without a name here
  if (f.kind == outcome_kind::rejected) {
    const std::string_view problem = problem_name(f.problem_type);
    if (problem == "invalid-state-transition") return errc::invalid_state;
    if (problem == "duplicate-business-id") return errc::duplicate_business_id;
    return errc::rejected;
  }
  if (f.status != 0) return reason_of_status(f.status);
  if (f.last_transport_error) return reason_of_transport(f.last_transport_error);
  return errc::no_answer;
}

}  // namespace idem::detail
