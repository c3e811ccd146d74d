// The conversions between Beast's messages and the core's, and the front end's own answers
// (http_wire.hpp).
#include "mock_server/http/http_wire.hpp"

#include <array>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/field.hpp>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <iterator>
#include <nlohmann/json.hpp>
#include <utility>

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

// The request as its header section describes it, taken before the body is read: Beast adds
// trailer fields to the same message, and a trailer field must not be merged into the header
// section (RFC 9110 section 6.5.1), where the core would take it for a header.
request request_head(const beast_request& m) {
  request r;
  r.method = std::string(m.method_string());
  r.target = std::string(m.target());
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
