#include "idem/errc.hpp"

#include <string>

namespace idem {
namespace {

struct errc_words {
  std::string_view name;     // the one spelling (outcome::error())
  std::string_view message;  // in words, for describe() and std::error_code::message()
};

errc_words words_of(errc e) noexcept {
  switch (e) {
    case errc::connection_refused:
      return {"connection-refused", "connection refused"};
    case errc::dns_failed:
      return {"dns-failed", "could not resolve the host name"};
    case errc::connect_failed:
      return {"connect-failed", "could not connect to the server"};
    case errc::tls_failed:
      return {"tls-failed", "TLS failed: the handshake was refused or broke off"};
    case errc::certificate_rejected:
      return {"certificate-rejected",
              "TLS failed: the server's certificate is not trusted or not for this host "
              "(transport_options.ca_file trusts a private CA), or the client certificate or key "
              "cannot be used"};
    case errc::attempt_timed_out:
      return {"attempt-timed-out", "the attempt timed out"};
    case errc::connection_lost:
      return {"connection-lost", "connection lost before a complete response"};
    case errc::transport_failed:
      return {"transport-failed", "the transport failed"};
    case errc::invalid_request:
      return {"invalid-request",
              "the request cannot be sent (malformed URL or unsupported scheme)"};
    case errc::server_error:
      return {"server-error", "the server answered with an error but no verdict"};
    case errc::rate_limited:
      return {"rate-limited", "the server asked to slow down (429) until the deadline"};
    case errc::still_in_progress:
      return {"still-in-progress", "the server was still executing it"};
    case errc::deadline_too_short:
      return {"deadline-too-short", "the deadline leaves no time for an attempt"};
    case errc::offline:
      return {"offline", "offline until the deadline"};
    case errc::cancelled:
      return {"cancelled", "cancelled"};
    case errc::key_retention_passed:
      return {"key-retention-passed",
              "the server may have forgotten the key, and no lookup can check the intent"};
    case errc::rejected:
      return {"rejected", "rejected by the server"};
    case errc::invalid_state:
      return {"invalid-state", "the resource's state refuses it"};
    case errc::duplicate_business_id:
      return {"duplicate-business-id", "another intent owns this business ID"};
    case errc::idempotency_key_mismatch:
      return {"idempotency-key-mismatch", "the key was used for another request"};
    case errc::idempotency_key_missing:
      return {"idempotency-key-missing", "the server found no idempotency key"};
    case errc::idempotency_key_invalid:
      return {"idempotency-key-invalid", "the server refused the idempotency key as malformed"};
    case errc::idempotency_key_misuse:
      return {"idempotency-key-misuse", "the server says the idempotency key was misused"};
    case errc::foreign_credentials:
      return {"foreign-credentials", "the key belongs to other credentials"};
    case errc::unbound_plan:
      return {"unbound-plan", "a planned intent must be bound before it is submitted"};
    case errc::journal_write_failed:
      return {"journal-write-failed", "the intent store could not write the intent"};
    case errc::journal_unavailable:
      return {"journal-unavailable", "the journal could not be opened"};
    case errc::abandoned:
      return {"abandoned", "the intent was abandoned"};
    case errc::lookup_found_nothing:
      return {"lookup-found-nothing", "the lookup found no record of it"};
    case errc::lookup_inconclusive:
      return {"lookup-inconclusive", "the lookup's answer proves nothing"};
    case errc::lookup_unanswered:
      return {"lookup-unanswered", "no lookup answered within the deadline"};
    case errc::lookup_unusable:
      return {"lookup-unusable", "the lookup's URL names a value the payload lacks"};
    case errc::duplicates_found:
      return {"duplicates-found", "the backend executed it more than once"};
    case errc::no_answer:
      return {"no-answer", "no answer"};
  }
  return {{}, "unknown idem error"};
}

class category_impl final : public std::error_category {
 public:
  const char* name() const noexcept override { return "idem"; }
  std::string message(int value) const override {
    return std::string(words_of(static_cast<errc>(value)).message);
  }
  // Lets an app test for the portable condition (`reason == std::errc::timed_out`).
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<errc>(value)) {
      case errc::connection_refused:
        return std::errc::connection_refused;
      case errc::attempt_timed_out:
        return std::errc::timed_out;
      case errc::cancelled:
        return std::errc::operation_canceled;
      default:
        return {value, *this};
    }
  }
};

}  // namespace

const std::error_category& category() noexcept {
  static const category_impl instance;
  return instance;
}

std::string_view to_string(errc e) noexcept {
  return words_of(e).name;
}

}  // namespace idem
