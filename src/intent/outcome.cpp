#include "idem/outcome.hpp"

#include <ostream>

#include "intent/outcome_reason.hpp"

namespace idem {
namespace {

// The RFC 9110 reason phrase of the statuses an API answers with; nullptr for others.
const char* reason_phrase(int status) noexcept {
  switch (status) {
    case 200:
      return "OK";
    case 201:
      return "Created";
    case 202:
      return "Accepted";
    case 204:
      return "No Content";
    case 400:
      return "Bad Request";
    case 401:
      return "Unauthorized";
    case 402:
      return "Payment Required";
    case 403:
      return "Forbidden";
    case 404:
      return "Not Found";
    case 405:
      return "Method Not Allowed";
    case 406:
      return "Not Acceptable";
    case 407:
      return "Proxy Authentication Required";
    case 408:
      return "Request Timeout";
    case 409:
      return "Conflict";
    case 410:
      return "Gone";
    case 411:
      return "Length Required";
    case 412:
      return "Precondition Failed";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 415:
      return "Unsupported Media Type";
    case 421:
      return "Misdirected Request";
    case 422:
      return "Unprocessable Content";
    case 425:
      return "Too Early";
    case 428:
      return "Precondition Required";
    case 429:
      return "Too Many Requests";
    case 500:
      return "Internal Server Error";
    case 501:
      return "Not Implemented";
    case 502:
      return "Bad Gateway";
    case 503:
      return "Service Unavailable";
    case 504:
      return "Gateway Timeout";
    default:
      return nullptr;
  }
}

// "HTTP 409 Conflict" ("HTTP 599" for a status without a phrase).
std::string http_status_words(int status) {
  std::string words = "HTTP " + std::to_string(status);
  if (const char* phrase = reason_phrase(status)) words.append(" ").append(phrase);
  return words;
}

// The first `max` characters of `body` on one line, with "..." when it was cut.
std::string body_start(std::string_view body, std::size_t max) {
  std::string out;
  for (char c : body) {
    if (out.size() == max) return out + "...";
    out.push_back(c == '\r' || c == '\n' || c == '\t' ? ' ' : c);
  }
  return out;
}

std::string transport_words(std::error_code ec) {
  if (ec == std::errc::operation_canceled) return "cancelled";
  // The reason's words say what the transport's own message does not (a TLS hint).
  const errc meaning = detail::reason_of_transport(ec);
  if (meaning == errc::certificate_rejected || meaning == errc::tls_failed) {
    return make_error_code(meaning).message();
  }
  return ec.message();
}

std::string duplicates_words(std::uint32_t records) {
  return "the lookup found " + std::to_string(records) +
         " records of this intent: the backend executed it more than once";
}

}  // namespace

std::string_view to_string(outcome_kind k) noexcept {
  switch (k) {
    case outcome_kind::succeeded:
      return "succeeded";
    case outcome_kind::rejected:
      return "rejected";
    case outcome_kind::not_sent:
      return "not_sent";
    case outcome_kind::unresolved:
      return "unresolved";
  }
  return "unresolved";
}

std::error_code outcome::reason() const {
  const outcome_fields& fields = f();
  if (fields.reason && fields.kind != outcome_kind::succeeded) return fields.reason;
  return detail::reason_of_fields(fields);
}

std::string outcome::explain(std::size_t body_chars) const {
  const outcome_fields& fields = f();
  if (!fields.error.empty()) return fields.error;
  if (fields.kind == outcome_kind::succeeded) {
    return fields.matching_records > 1 ? duplicates_words(fields.matching_records) : std::string{};
  }
  const std::error_code transport = fields.last_transport_error;
  if (fields.status != 0) {
    std::string words = http_status_words(fields.status);
    if (body_chars != 0 && !fields.body.empty()) {
      words += ": " + body_start(fields.body, body_chars);
    }
    if (transport) words += "; last transport error: " + transport_words(transport);
    return words;
  }
  if (transport) return transport_words(transport);
  return reason().message();
}

std::string outcome::explain_lookup(std::string_view url) const {
  const std::error_code why = reason();
  if (why.category() != category()) return {};
  switch (static_cast<errc>(why.value())) {
    case errc::lookup_found_nothing:
    case errc::lookup_inconclusive:
    case errc::lookup_unanswered:
    case errc::lookup_unusable:
      break;
    default:
      return {};
  }
  const outcome_fields& fields = f();
  std::string got;
  if (fields.lookup_status != 0) {
    got = http_status_words(fields.lookup_status);
  } else if (fields.lookup_transport_error) {
    got = transport_words(fields.lookup_transport_error);
  }
  if (!url.empty()) got.append(got.empty() ? "" : " at ").append(url);
  std::string words = why.message();
  if (!got.empty()) words.append(" (").append(got).append(")");
  return words;
}

std::string outcome::describe() const {
  const outcome_fields& fields = f();
  std::string out(to_string(fields.kind));
  if (fields.status != 0) out += ", " + http_status_words(fields.status);
  out += ", " + std::to_string(fields.attempts) + (fields.attempts == 1 ? " attempt" : " attempts");
  if (fields.recovered_by_lookup) out += ", found by the lookup";
  if (fields.replayed) out += ", replayed";
  const std::error_code why = reason();
  if (!why) return out;
  const bool ours = why.category() == category();
  out.append(": ").append(ours ? to_string(static_cast<errc>(why.value())) : why.category().name());
  if (fields.matching_records > 1) return out + ": " + duplicates_words(fields.matching_records);
  out += ": " + why.message();
  if (fields.status != 0 && !fields.body.empty()) out += ": " + body_start(fields.body, 200);
  // The transport's last failure, when it is not what the reason already says.
  const std::error_code transport = fields.last_transport_error;
  if (transport &&
      (!ours || detail::reason_of_transport(transport) != static_cast<errc>(why.value()))) {
    out += "; last transport error: " + transport_words(transport);
  }
  return out;
}

std::ostream& operator<<(std::ostream& os, const outcome& o) {
  return os << o.describe();
}

const outcome_fields& outcome::unknown() noexcept {
  static const outcome_fields fields{};
  return fields;
}

}  // namespace idem
