#include "idem/classify.hpp"

namespace idem {
namespace {

constexpr std::string_view in_progress_problem = "idempotency-request-in-progress";
constexpr std::string_view duplicate_business_id_problem = "duplicate-business-id";
constexpr std::string_view invalid_state_problem = "invalid-state-transition";
constexpr std::string_view key_mismatch_problem = "idempotency-key-mismatch";

attempt_class classify_status(int status, std::string_view problem) noexcept {
  if (status >= 200 && status <= 299) return attempt_class::succeeded;
  if (status == 429) return attempt_class::not_processed;
  if (status == 408) return attempt_class::unknown;  // the server gave up reading, maybe late
  if (status == 409) {
    if (problem == in_progress_problem) return attempt_class::in_progress;
    if (problem == duplicate_business_id_problem) return attempt_class::business_conflict;
    // A definite answer about the resource's state (e.g. paying a cancelled order).
    if (problem == invalid_state_problem) return attempt_class::rejected;
    // Anything else under 409 may be the first request with our key still running (many
    // servers say so with a bare 409): never a rejection (the safety rule of server_profile).
    return attempt_class::in_progress;
  }
  if (status == 425) return attempt_class::in_progress;  // Too Early: the same, by another name
  if (status == 422) {
    return problem == key_mismatch_problem ? attempt_class::client_bug : attempt_class::rejected;
  }
  if (status >= 400 && status <= 499) return attempt_class::rejected;
  // 3xx (the SDK follows no redirects: a POST must not be re-sent elsewhere), 5xx, and anything
  // outside the table (1xx as a final answer, or no valid status at all): a response arrived,
  // so the request did reach something that may have acted on it. Retrying with the same key is
  // safe; calling it rejected could report as failed something that happened.
  return attempt_class::unknown;
}

}  // namespace

std::string_view problem_name(std::string_view type_uri) noexcept {
  // A query or fragment is not part of the path, so not part of its last segment either.
  type_uri = type_uri.substr(0, type_uri.find_first_of("?#"));
  const auto slash = type_uri.rfind('/');
  return slash == std::string_view::npos ? type_uri : type_uri.substr(slash + 1);
}

attempt_class classify(const attempt_facts& facts) noexcept {
  switch (facts.failure) {
    case transport_failure::not_sent:
      return attempt_class::not_sent;
    case transport_failure::unknown:
      return attempt_class::unknown;
    case transport_failure::none:
      break;
  }
  // A value outside the enumeration says nothing reliable about the attempt: assume the worst.
  if (facts.failure != transport_failure::none) return attempt_class::unknown;
  return classify_status(facts.status, problem_name(facts.problem_type));
}

bool is_retryable(attempt_class c) noexcept {
  switch (c) {
    case attempt_class::not_sent:
    case attempt_class::unknown:
    case attempt_class::not_processed:
    case attempt_class::in_progress:
      return true;
    case attempt_class::succeeded:
    case attempt_class::client_bug:
    case attempt_class::business_conflict:  // settled by the lookup, never by re-sending
    case attempt_class::rejected:
      return false;
  }
  return false;
}

bool may_have_executed(attempt_class c) noexcept {
  switch (c) {
    case attempt_class::succeeded:
    case attempt_class::unknown:
    // The server holds a PROCESSING record under our key: one of our attempts is executing.
    case attempt_class::in_progress:
      return true;
    case attempt_class::not_sent:
    case attempt_class::not_processed:
    case attempt_class::client_bug:
    case attempt_class::business_conflict:
    case attempt_class::rejected:
      return false;
  }
  return true;  // an out-of-range value: assume the worst, as an ambiguous answer must
}

std::string_view to_string(attempt_class c) noexcept {
  switch (c) {
    case attempt_class::succeeded:
      return "succeeded";
    case attempt_class::not_sent:
      return "not_sent";
    case attempt_class::unknown:
      return "unknown";
    case attempt_class::not_processed:
      return "not_processed";
    case attempt_class::in_progress:
      return "in_progress";
    case attempt_class::client_bug:
      return "client_bug";
    case attempt_class::business_conflict:
      return "business_conflict";
    case attempt_class::rejected:
      return "rejected";
  }
  return "invalid";
}

}  // namespace idem
