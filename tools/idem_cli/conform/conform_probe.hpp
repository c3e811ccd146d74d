#pragma once
// The HTTP side of `idem-cli conform`: sends the checks' requests through the SDK's own transport
// (libcurl multi on Asio), one at a time or a whole burst at once, and blocks until every one of
// them has an answer or a failure (each is bounded by its request's timeout).

#include <boost/asio/io_context.hpp>
#include <vector>

#include "idem/curl_transport.hpp"
#include "idem/transport.hpp"

namespace idem::cli {

/// Owns an io_context and a curl_transport, run on the calling thread. Not thread-safe.
class conform_probe {
 public:
  explicit conform_probe(curl_transport_options options = {});

  /// Sends `req` and returns what came back (a response, or the failure in `ec`).
  [[nodiscard]] transport_result send(http_request req);
  /// Starts every request before any completes (a burst on as many connections), then waits for
  /// all; results in the order of `reqs`.
  [[nodiscard]] std::vector<transport_result> send_all(std::vector<http_request> reqs);

 private:
  boost::asio::io_context io_{1};  // before transport_: it must outlive the transport
  curl_transport transport_;
};

}  // namespace idem::cli
