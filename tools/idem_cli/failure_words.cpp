#include "idem_cli/failure_words.hpp"

#include "idem/transport_error.hpp"

namespace idem::cli {
namespace {

const char* reason_phrase(int status) noexcept {
  switch (status) {
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

}  // namespace

std::string http_status_words(int status) {
  std::string words = "HTTP " + std::to_string(status);
  if (const char* phrase = reason_phrase(status)) words.append(" ").append(phrase);
  return words;
}

std::string transport_error_words(std::error_code ec) {
  if (ec == std::errc::operation_canceled) return "cancelled";
  if (ec == transport_errc::certificate_rejected) {
    return "TLS failed: the server's certificate is not trusted or not for this host (--cacert "
           "FILE trusts a private CA), or the client certificate or key cannot be used";
  }
  if (ec == transport_errc::tls_failed) return "TLS failed: the handshake was refused or broke off";
  return ec.message();
}

std::string body_start(std::string_view body, std::size_t max) {
  std::string out;
  for (char c : body) {
    if (out.size() == max) return out + "...";
    out.push_back(c == '\r' || c == '\n' || c == '\t' ? ' ' : c);
  }
  return out;
}

std::string failure_words(const outcome& o, std::string_view url, bool with_body) {
  if (!o.error().empty()) return o.error();
  if (o.kind() == outcome_kind::succeeded) return {};
  const std::error_code transport = o.last_transport_error();
  std::string words;
  if (o.status() != 0) {
    words = http_status_words(o.status());
    if (with_body && !o.body().empty()) words += ": " + body_start(o.body());
    if (transport) words += "; last transport error: " + transport_error_words(transport);
    return words;
  }
  if (!transport) return "no answer";
  words = transport_error_words(transport);
  // Where it failed helps with a network error; a cancellation happened here, not there.
  if (!url.empty() && transport != std::errc::operation_canceled) {
    words.append(" (").append(url).append(")");
  }
  return words;
}

}  // namespace idem::cli
