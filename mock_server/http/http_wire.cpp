// The conversions between Beast's messages and the core's, and the front end's own answers
// (http_wire.hpp).
#include "mock_server/http/http_wire.hpp"

#include <algorithm>
#include <array>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <boost/beast/http/write.hpp>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <sstream>
#include <utility>
#include <vector>

#include "mock_server/http/problem.hpp"

namespace idem::mock::wire {

namespace http = boost::beast::http;

void log_error(std::string_view what, std::string_view detail) {
  std::cerr << "idem http_server: " << what << ": " << detail << '\n';
}

// Parse failures of the request itself (answered with 400), as opposed to the connection ending.
bool is_malformed_request(const boost::system::error_code& ec) {
  static const auto& http_category = make_error_code(http::error::bad_method).category();
  return ec.category() == http_category && ec != http::error::end_of_stream &&
         ec != http::error::partial_message;
}

// IMF-fixdate (RFC 9110 section 5.6.7), independent of the C locale.
std::string http_date(std::chrono::system_clock::time_point tp) {
  static constexpr std::array<const char*, 7> days = {"Sun", "Mon", "Tue", "Wed",
                                                      "Thu", "Fri", "Sat"};
  static constexpr std::array<const char*, 12> months = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                         "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
  const std::time_t t = std::chrono::system_clock::to_time_t(tp);
  std::tm tm{};
  gmtime_r(&t, &tm);
  std::array<char, 64> buf{};
  std::snprintf(buf.data(), buf.size(), "%s, %02d %s %04d %02d:%02d:%02d GMT",
                days.at(static_cast<std::size_t>(tm.tm_wday) % 7), tm.tm_mday,
                months.at(static_cast<std::size_t>(tm.tm_mon) % 12), tm.tm_year + 1900, tm.tm_hour,
                tm.tm_min, tm.tm_sec);
  return buf.data();
}

// Problems raised by the transport itself, before or around the core. Built here rather than
// with make_problem() so that the front end depends on nothing but http_message.
response transport_problem(int status, std::string_view name, std::string_view title,
                           std::string detail) {
  nlohmann::json body = {{"type", std::string(problem_type_prefix) + std::string(name)},
                         {"title", title},
                         {"status", status},
                         {"detail", detail}};
  if (name == "validation-failed") {
    body["errors"] = nlohmann::json::array({{{"field", "request"}, {"message", detail}}});
  }
  response res;
  res.status = status;
  res.set_header("Content-Type", "application/problem+json");
  res.body = body.dump();
  return res;
}

response bad_request(std::string detail) {
  return transport_problem(400, "validation-failed", "Validation Failed", std::move(detail));
}

// The answer to a chunked body whose framing (not its data) is too large.
response framing_too_large(std::string detail) {
  return transport_problem(413, "payload-too-large", "Payload Too Large", std::move(detail));
}

// The answer to a connection beyond max_connections.
response at_capacity(const http_server_options& o) {
  auto res = transport_problem(503, "unavailable", "Service Unavailable",
                               "the server is serving its maximum of " +
                                   std::to_string(o.max_connections) +
                                   " connections; nothing was processed, try again");
  res.set_header("Retry-After", "1");
  return res;
}

namespace {

// "http://host:port/path?query" (absolute form, sent to proxies and allowed to servers) is
// served as "/path?query"; any other target is kept as it came.
std::string origin_form(std::string_view target) {
  for (const std::string_view scheme : {"http://", "https://"}) {
    if (target.size() >= scheme.size() && iequals(target.substr(0, scheme.size()), scheme)) {
      const auto path = target.find_first_of("/?", scheme.size());
      if (path == std::string_view::npos) return "/";
      if (target[path] == '?') return "/" + std::string(target.substr(path));
      return std::string(target.substr(path));
    }
  }
  return std::string(target);
}

// The comma-separated elements of a list-valued field (RFC 9110 section 5.6.1), trimmed, with
// the parameters of each dropped; empty elements are skipped as the list syntax asks.
std::vector<std::string_view> list_elements(std::string_view value) {
  std::vector<std::string_view> out;
  while (!value.empty()) {
    const auto comma = value.find(',');
    std::string_view element = value.substr(0, comma);
    value = comma == std::string_view::npos ? std::string_view{} : value.substr(comma + 1);
    element = element.substr(0, element.find(';'));
    const auto first = element.find_first_not_of(" \t");
    if (first == std::string_view::npos) continue;
    const auto last = element.find_last_not_of(" \t");
    out.push_back(element.substr(first, last - first + 1));
  }
  return out;
}

std::size_t count_fields(const beast_request& m, http::field name) {
  const auto [first, last] = m.equal_range(name);
  return static_cast<std::size_t>(std::distance(first, last));
}

response not_implemented(std::string detail) {
  return transport_problem(501, "not-implemented", "Not Implemented", std::move(detail));
}

std::optional<response> transfer_encoding_refusal(const beast_request& m) {
  std::vector<std::string_view> codings;
  bool present = false;
  for (const auto& field : m) {
    if (field.name() != http::field::transfer_encoding) continue;
    present = true;
    for (const auto coding : list_elements(field.value()))
      codings.push_back(coding);
  }
  if (!present) return std::nullopt;
  if (m.version() < 11) {
    return bad_request(
        "Transfer-Encoding in an HTTP/1.0 request: its body length cannot be trusted");
  }
  if (m.find(http::field::content_length) != m.end()) {
    return bad_request(
        "Transfer-Encoding and Content-Length in one request: its body length is "
        "ambiguous");
  }
  if (codings.empty() || !iequals(codings.back(), "chunked")) {
    return bad_request("Transfer-Encoding must end in chunked, or the body's length is unknown");
  }
  const auto chunked = std::count_if(codings.begin(), codings.end(),
                                     [](std::string_view c) { return iequals(c, "chunked"); });
  if (chunked > 1) return bad_request("Transfer-Encoding applies chunked more than once");
  if (codings.size() > 1) {
    return not_implemented("transfer coding '" + std::string(codings.front()) +
                           "' is not implemented; send the body with chunked alone");
  }
  return std::nullopt;
}

}  // namespace

std::optional<response> header_section_refusal(const beast_request& m) {
  if (auto refusal = transfer_encoding_refusal(m)) return refusal;
  const auto hosts = count_fields(m, http::field::host);
  if (hosts == 0 && m.version() >= 11) return bad_request("an HTTP/1.1 request needs a Host");
  if (hosts > 1) return bad_request("Host sent more than once");
  if (hosts == 1 && m[http::field::host].find(',') != std::string_view::npos) {
    return bad_request("Host names more than one host");
  }
  if (count_fields(m, http::field::authorization) > 1) {
    return bad_request("Authorization sent more than once: which credentials count is unknown");
  }
  return std::nullopt;
}

std::string at_capacity_bytes(const response& res) {
  std::ostringstream out;
  out << to_beast(res, 11, /*keep_alive=*/false, /*is_head=*/false);
  return out.str();
}

// The request as its header section describes it, taken before the body is read: Beast adds
// trailer fields to the same message, and a trailer field must not be merged into the header
// section (RFC 9110 section 6.5.1), where the core would take it for a header.
request request_head(const beast_request& m) {
  request r;
  r.method = std::string(m.method_string());
  r.target = origin_form(m.target());
  r.headers.reserve(static_cast<std::size_t>(std::distance(m.begin(), m.end())));
  for (const auto& field : m) {
    r.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  }
  return r;
}

// The transport owns the framing headers: the core's Content-Length, Connection or
// Transfer-Encoding would contradict what is written. A Date set by the core (e.g. from the
// mock clock) is kept; otherwise the real time is sent.
beast_response to_beast(response res, unsigned version, bool keep_alive, bool is_head) {
  beast_response msg;
  msg.version(version);
  const bool valid_status = res.status >= 100 && res.status <= 999;
  msg.result(static_cast<unsigned>(valid_status ? res.status : 500));
  bool has_date = false;
  for (auto& [name, value] : res.headers) {
    if (iequals(name, "Content-Length") || iequals(name, "Connection") ||
        iequals(name, "Transfer-Encoding")) {
      continue;
    }
    if (iequals(name, "Date")) has_date = true;
    msg.insert(name, value);
  }
  if (!has_date) msg.set(http::field::date, http_date(std::chrono::system_clock::now()));
  const unsigned status = msg.result_int();
  const bool bodyless_status = status / 100 == 1 || status == 204 || status == 304;
  if (!bodyless_status) msg.body() = std::move(res.body);
  msg.keep_alive(keep_alive);
  // Beast leaves "close" implicit for HTTP/1.0; saying it costs nothing and helps every client.
  if (!keep_alive) msg.set(http::field::connection, "close");
  msg.prepare_payload();
  if (is_head) msg.body().clear();  // Content-Length still announces the GET body's size
  return msg;
}

bool expects_continue(const beast_request& m) {
  auto it = m.find(http::field::expect);
  return it != m.end() && iequals(it->value(), "100-continue") && m.version() >= 11;
}

}  // namespace idem::mock::wire
