#pragma once
// The mock server's messages on the wire: Beast's request and response types, the conversions
// between them and the core's transport-neutral request and response (http_message.hpp), and the
// answers the front end gives by itself, before or around the core. Private to the front end
// (http_server.cpp, http_connection.cpp): Beast's headers cost nothing anywhere else.

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/system/error_code.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "mock_server/http/http_message.hpp"
#include "mock_server/http/http_server.hpp"

namespace idem::mock::wire {

using beast_request = boost::beast::http::request<boost::beast::http::string_body>;
using beast_response = boost::beast::http::response<boost::beast::http::string_body>;
using beast_request_parser = boost::beast::http::request_parser<boost::beast::http::string_body>;

/// The front end's own line on stderr (never a request's data).
void log_error(std::string_view what, std::string_view detail);
/// A parse failure of the request itself (answered 400), not the connection ending.
[[nodiscard]] bool is_malformed_request(const boost::system::error_code& ec);
/// IMF-fixdate (RFC 9110 section 5.6.7), independent of the C locale.
[[nodiscard]] std::string http_date(std::chrono::system_clock::time_point tp);
/// A problem+json answer of the front end's own (it depends on nothing but http_message).
[[nodiscard]] response transport_problem(int status, std::string_view name, std::string_view title,
                                         std::string detail);
/// `400 validation-failed` for a request that is not HTTP.
[[nodiscard]] response bad_request(std::string detail);
/// `413 payload-too-large` for a chunked body whose framing (not its data) is too large.
[[nodiscard]] response framing_too_large(std::string detail);
/// `503 unavailable` with `Retry-After: 1`, for a connection beyond max_connections.
[[nodiscard]] response at_capacity(const http_server_options& o);
/// `res` as the bytes of an HTTP/1.1 response with `Connection: close`, for a connection that
/// is answered without a session (no descriptor was left for one).
[[nodiscard]] std::string at_capacity_bytes(const response& res);
/// The answer to a header section that must be refused before anything else is done with the
/// request, authentication included, and after which the connection closes: a body whose length
/// cannot be known for certain (RFC 9112 section 6.1 and 6.3: a Transfer-Encoding that does not
/// end in chunked, chunked twice, Transfer-Encoding in HTTP/1.0 or next to Content-Length: 400; a
/// transfer coding before chunked, which the server does not implement: 501), a missing, repeated
/// or list-valued Host (section 3.2), and two Authorization fields (which one counts would be a
/// guess). Empty when the header section may be served.
[[nodiscard]] std::optional<response> header_section_refusal(const beast_request& m);
/// The request as its header section describes it (before the body and any trailer). An
/// absolute-form target (RFC 9112 section 3.2.2) becomes its origin form.
[[nodiscard]] request request_head(const beast_request& m);
/// The core's response as Beast writes it; the front end owns the framing headers.
[[nodiscard]] beast_response to_beast(response res, unsigned version, bool keep_alive,
                                      bool is_head);
/// An HTTP/1.1 request that waits for `100 Continue` before it sends its body.
[[nodiscard]] bool expects_continue(const beast_request& m);

}  // namespace idem::mock::wire
