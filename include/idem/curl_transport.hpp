#pragma once
/// @file
/// The production transport: libcurl's multi_socket interface driven by Boost.Asio on the
/// client's executor (no threads, no curl_easy_perform), HTTP/1.1 keep-alive connection reuse,
/// HTTPS through OpenSSL with peer and host verification always on.

#include <boost/asio/any_io_executor.hpp>
#include <chrono>
#include <cstddef>
#include <memory>
#include <string>

#include "idem/transport.hpp"
#include "idem/transport_error.hpp"
#include "idem/version.hpp"

namespace idem {

/// TLS settings. Verification of the server's certificate and host name is always on: there is
/// deliberately no option to turn it off. Empty paths mean the system's CA store.
struct tls_options {
  std::string ca_file{};  ///< PEM bundle of trusted CAs (CURLOPT_CAINFO)
  std::string ca_path{};  ///< directory of hashed CA certificates (CURLOPT_CAPATH)
  /// A client certificate for servers that ask for one (mutual TLS): a PEM file with the
  /// certificate (and any intermediates after it), CURLOPT_SSLCERT. Empty: none is offered.
  std::string client_cert_file{};
  /// The PEM private key of `client_cert_file` (CURLOPT_SSLKEY); empty: the key is in
  /// `client_cert_file` itself.
  std::string client_key_file{};
  /// The passphrase of an encrypted key (CURLOPT_KEYPASSWD); empty: the key is not encrypted.
  /// Files that cannot be read, a wrong passphrase or a key that does not fit the certificate
  /// fail the attempt before a request leaves (`not_sent`, `certificate_rejected`: final).
  std::string client_key_password{};
};

/// Which HTTP proxy requests go through.
///
/// Unless told otherwise, the environment decides, read as libcurl reads it: `http_proxy`
/// (lower case only, so that a CGI's `HTTP_PROXY` request header cannot choose it) for http://
/// URLs, `https_proxy` or `HTTPS_PROXY` for https:// URLs, `all_proxy` or `ALL_PROXY` for both,
/// and `no_proxy` or `NO_PROXY` (host names, domains, IP addresses or CIDR ranges,
/// comma-separated; `*` for all) for the hosts that go direct; the first of each list that is
/// set decides, an empty one counting as unset. The transport reads them once, when it is made
/// (libcurl would read them for every request): a variable changed later is seen by the next
/// transport made, not by this one. What idem does with these fields:
/// - `url` empty (the default): the environment decides, exactly as above;
/// - `url` set: every request goes through it (CURLOPT_PROXY) and the proxy variables of the
///   environment are not read; `no_proxy` of the environment still applies unless the field
///   below or `ignore_environment` says otherwise;
/// - `no_proxy` set: these hosts go direct (CURLOPT_NOPROXY), whatever the environment says;
/// - `ignore_environment`: no variable is read at all; without `url` every request goes direct.
/// https:// requests go through the proxy in a CONNECT tunnel, so TLS (and its verification)
/// still runs end to end with the server; the proxy sees only the host and port.
struct proxy_options {
  /// e.g. "http://proxy.internal:3128" (credentials may be given in it:
  /// "http://user:password@proxy:3128"); "socks5h://..." works too.
  std::string url{};
  std::string no_proxy{};  ///< e.g. "localhost,127.0.0.1,.internal"
  bool ignore_environment = false;
};

struct curl_transport_options {
  tls_options tls{};
  proxy_options proxy{};
  /// Responses larger than this fail the attempt (`failure = unknown`: the request was sent).
  std::size_t max_response_bytes = 1024 * 1024;
  /// Upper bound for the TCP + TLS connect phase (further trimmed by the request's timeout).
  std::chrono::milliseconds connect_timeout{5'000};
  /// Connections kept open for reuse beyond those the transfers in flight need. Every transfer
  /// in flight keeps its connection for the next request (the cache grows with the most
  /// transfers in flight since the transport was last idle), so a steady load opens no new
  /// connections whatever its concurrency; when transfers end, connections beyond this many are
  /// closed, oldest first, as later transfers hand theirs back. 16: enough for an app's bursts,
  /// few enough sockets for a phone at rest. (A fixed cache of 16 opened a new connection for
  /// about every other request at 64 in flight.)
  long max_idle_connections = 16;
  /// Sent as the `User-Agent` header of every request that has none of its own; empty sends
  /// none. A line break (or NUL) in it makes every request fail `invalid_request`, unsent.
  std::string user_agent = "idem/" IDEM_VERSION_STRING;
};

/// Failures are reported with `transport_errc` codes (idem/transport_error.hpp). `not_sent` is
/// reported only when curl never started writing the request on any connection (its
/// pre-request callback never ran) and the failure is one of DNS, connect, connect timeout or
/// TLS handshake/verification; everything else, including a failure after curl's own silent
/// retry of a request whose reused connection died, is `unknown`.
///
/// Cancellation through the handler's associated slot: terminal cancellation always ends the
/// transfer (`std::errc::operation_canceled`, `failure` as above); partial and total
/// cancellation end it only while nothing was sent, and are ignored afterwards.
///
/// The first transport constructed calls `curl_global_init(CURL_GLOBAL_DEFAULT)` once for the
/// process (thread-safe, function-local static); curl_global_cleanup is never called.
///
/// Thread-safety: all operations must be initiated from the executor's thread (use a strand or
/// a single-threaded io_context); completion handlers run on their associated executors.
/// Destroying the transport completes every transfer in flight with
/// `std::errc::operation_canceled` (posted, never inline) and leaks nothing.
class curl_transport final : public transport {
 public:
  curl_transport(boost::asio::any_io_executor ex, curl_transport_options options = {});
  ~curl_transport() override;
  curl_transport(const curl_transport&) = delete;
  curl_transport& operator=(const curl_transport&) = delete;

  /// Closes every connection curl keeps for reuse, and ends every transfer in flight with
  /// `transport_errc::connections_reset`, `failure = not_sent` only if it provably never left
  /// (the rule above: its pre-request callback never ran), else `unknown`. The results are
  /// posted, never completed from inside this call; in_flight() is 0 on return. No later request
  /// reuses a connection opened before the call (curl's connection cache is replaced, and its
  /// DNS cache with it); the transport then works as before. Call it from the executor's thread,
  /// like async_send. Cheap with nothing in flight and no connection open; harmless twice in a
  /// row and once the transport is being destroyed.
  void reset_connections() override;

  /// Transfers currently in flight.
  [[nodiscard]] std::size_t in_flight() const noexcept;

 protected:
  void send_impl(http_request req, boost::asio::any_completion_handler<signature> handler) override;

 private:
  struct impl;
  std::shared_ptr<impl> impl_;
};

}  // namespace idem
