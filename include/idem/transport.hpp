#pragma once
/// @file
/// The transport abstraction: sends one HTTP request and reports either a response or how it
/// failed, in terms the classification needs (never sent vs. maybe sent). The client speaks only
/// to this interface, so tests can plug in a fake and apps their own stack.

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/async_result.hpp>
#include <chrono>
#include <string>
#include <system_error>
#include <utility>
#include <vector>

#include "idem/classify.hpp"
#include "idem/http_headers.hpp"
#include "idem/request_body.hpp"

namespace idem {

/// One HTTP request as the client builds it.
struct http_request {
  std::string method;  ///< "POST", "GET"
  std::string url;     ///< absolute: scheme://host:port/path?query
  header_list headers;
  /// Shared bytes: a copy of the request (or a retry of it) does not copy the body.
  request_body body;
  /// The whole attempt (connect, send, wait, receive) must end within this.
  std::chrono::milliseconds timeout{10'000};
};

struct http_response {
  int status = 0;
  header_list headers;
  std::string body;
  /// First header with this name (case-insensitive), or nullptr.
  [[nodiscard]] const std::string* header(std::string_view name) const;
};

/// What one attempt produced. Exactly one of: a response (`failure == none`, `ec` empty), or a
/// failure with `ec` naming it and `failure` saying whether the request provably never left.
struct transport_result {
  std::error_code ec;
  transport_failure failure = transport_failure::none;
  http_response response;
  /// The attempt ran on a connection reused from an earlier request (keep-alive).
  bool reused_connection = false;
};

/// Interface for HTTP transports. Implementations must: complete every operation exactly once,
/// never inline from async_send (post instead), on the handler's associated executor; honour
/// per-operation cancellation (terminal): a cancelled transfer completes with
/// `ec == std::errc::operation_canceled` and `failure = unknown` unless it provably never left;
/// complete outstanding operations with an error when destroyed.
/// Thread-safety: stated by each implementation.
class transport {
 public:
  using signature = void(transport_result);
  virtual ~transport() = default;

  /// Sends `req`; completes with a `transport_result`. Accepts any Asio completion token.
  template <class CompletionToken>
  auto async_send(http_request req, CompletionToken&& token) {
    return boost::asio::async_initiate<CompletionToken, signature>(
        [this](auto handler, http_request r) {
          send_impl(std::move(r),
                    boost::asio::any_completion_handler<signature>(std::move(handler)));
        },
        token, std::move(req));
  }

  /// Drops every pooled connection and ends every transfer in flight with
  /// `transport_errc::connections_reset` (`failure = not_sent` if it provably never left, else
  /// `unknown`), completed as any other result. For an app back from the background, whose
  /// sockets may have died while it was suspended: the client then sends again, under the same
  /// key, on new connections (client::on_foreground). Later requests open new connections.
  /// The default does nothing (a transport without a pool of its own).
  virtual void reset_connections() {}

 protected:
  virtual void send_impl(http_request req,
                         boost::asio::any_completion_handler<signature> handler) = 0;
};

}  // namespace idem
