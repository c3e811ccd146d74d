#pragma once
// Transport-neutral HTTP request and reply as the mock server's core sees them. The Beast layer
// (http_server.cpp) converts to and from these so that the core never includes Beast.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace idem::mock {

using header_list = std::vector<std::pair<std::string, std::string>>;

/// One parsed HTTP request. Header names keep their original spelling; look-ups ignore case.
struct request {
  std::string method;  ///< e.g. "POST"
  std::string target;  ///< the request-target as sent, with the query string
  header_list headers;
  std::string body;
  /// Set when the body exceeded the server's body limit; `body` is then empty and the
  /// connection is closed after the reply.
  bool body_too_large = false;

  /// The path part of `target` (before '?').
  [[nodiscard]] std::string_view path() const;
  /// The query part of `target` (after '?'), empty when there is none.
  [[nodiscard]] std::string_view query() const;
  /// The first header with this name (case-insensitive), if any.
  [[nodiscard]] std::optional<std::string_view> header(std::string_view name) const;
  /// How many times the header occurs (case-insensitive).
  [[nodiscard]] std::size_t header_count(std::string_view name) const;
};

/// One HTTP response. `Content-Length`, `Date` and `Connection` are added by the transport.
struct response {
  int status = 200;
  header_list headers;
  std::string body;

  /// The first header with this name (case-insensitive), if any.
  [[nodiscard]] std::optional<std::string_view> header(std::string_view name) const;
  void set_header(std::string name, std::string value);
};

/// What the connection does with a response: the fault injector can ask for the response to be
/// replaced by a TCP reset, or held back before it is written.
enum class delivery {
  respond,  ///< write the response normally
  reset,    ///< write nothing; abort the connection with a TCP RST (SO_LINGER 0)
  stall,    ///< wait `stall_for`, then write the response
};

struct reply {
  response res;
  delivery how = delivery::respond;
  std::chrono::milliseconds stall_for{0};
  /// Close the connection after this reply even if the client asked for keep-alive.
  bool close = false;
};

/// Case-insensitive ASCII comparison of header names.
[[nodiscard]] bool iequals(std::string_view a, std::string_view b) noexcept;

/// Splits a query string into a decoded value for `name` (first occurrence), percent-decoding
/// `%XX` and `+`. Returns nullopt when the parameter is absent.
[[nodiscard]] std::optional<std::string> query_param(std::string_view query, std::string_view name);

}  // namespace idem::mock
