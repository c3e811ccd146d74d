#pragma once
// One HTTP request as a curl easy handle, and the response collected from curl's callbacks
// (private to the idem library). Knows nothing of the multi handle or of Asio.

#include <curl/curl.h>

#include <cstddef>
#include <optional>
#include <string_view>
#include <system_error>

#include "idem/curl_transport.hpp"
#include "idem/transport.hpp"
#include "transport/curl_handle_pool.hpp"
#include "transport/curl_header_list.hpp"
#include "transport/curl_parsed_url.hpp"
#include "transport/curl_proxy_settings.hpp"

namespace idem::detail {

/// The receive buffer of a handle, which curl allocates when a transfer starts and frees when
/// it ends (CURLOPT_BUFFERSIZE). A handle starts with the small one, which an order's or a
/// payment's answer fits in: curl's default of 16 KiB held about 3.4 KB of touched memory per
/// transfer in flight more (peak RSS of idem-cli at 5,000 in flight 107.2 -> 90.3 MB, raw
/// libcurl 98.0 MB; docs/PERFORMANCE.md) and went through glibc's slow path for large blocks
/// on every transfer. A handle whose answer did not fit in one buffer switches to the large one
/// (curl's default) for the rest of its life, so that an app whose answers are large reads
/// them in as few system calls as before.
inline constexpr long small_receive_buffer = 1024;  // curl's minimum
inline constexpr long large_receive_buffer = CURL_MAX_WRITE_SIZE;

/// Thread-safety: none. The object must stay at one address while curl uses its easy handle
/// (the callbacks point at it), and be removed from any multi handle before it is destroyed.
class curl_request {
 public:
  /// Sets up an easy handle from `pool` (given back when this object goes, so `pool` must
  /// outlive it) for `req` with `options` and `proxy` (the transport's, which `pool`'s handles
  /// may keep: one transport's requests share both); check `setup_error()` before use.
  curl_request(http_request req, const curl_transport_options& options,
               const curl_proxy_settings& proxy, curl_handle_pool& pool);
  ~curl_request();
  curl_request(const curl_request&) = delete;
  curl_request& operator=(const curl_request&) = delete;

  [[nodiscard]] CURL* easy() const noexcept { return easy_; }
  /// The handle is new: the transport sets its own transport-wide options on it too.
  [[nodiscard]] bool fresh_handle() const noexcept { return fresh_handle_; }
  /// Set when the request cannot be sent at all (nothing left): a header with CR or LF, a
  /// handle curl could not make or configure.
  [[nodiscard]] std::error_code setup_error() const noexcept { return setup_error_; }
  /// The pre-request callback ran: curl was about to write the request to a connection.
  [[nodiscard]] bool started() const noexcept { return started_; }

  /// The result of a transfer curl finished with `code`. Moves the response out: call once.
  [[nodiscard]] transport_result finish(CURLcode code);
  /// The result of a transfer ended before curl finished it (cancellation, shutdown).
  [[nodiscard]] transport_result abandon() const;
  /// The result of a transfer ended because its time ran out before curl's did (the transport
  /// counts from when it accepted the request; curl from when it started on it).
  [[nodiscard]] transport_result time_out() const;
  /// The result of a transfer ended because the transport dropped every connection
  /// (curl_transport::reset_connections).
  [[nodiscard]] transport_result dropped() const;

 private:
  [[nodiscard]] transport_result stopped_early(std::error_code why) const;
  static std::size_t on_body(char* data, std::size_t size, std::size_t count, void* self);
  static std::size_t on_header(char* data, std::size_t size, std::size_t count, void* self);
  static int on_prereq(void* self, char* primary_ip, char* local_ip, int primary_port,
                       int local_port);

  void configure_handle(const curl_transport_options& options, const curl_proxy_settings& proxy);
  // Takes the body out of `req`; the rest of it is not kept.
  void configure_request(http_request& req, const curl_transport_options& options,
                         const curl_proxy_settings& proxy);
  void set_headers(const header_list& headers, std::string_view user_agent,
                   std::optional<std::size_t> posted_bytes);
  // Counts response bytes against the limit; false (and too_large_) once it is exceeded.
  bool admit(std::size_t n) noexcept;
  [[nodiscard]] bool reused_connection() const;

  request_body body_;  // curl reads it in place (POSTFIELDS) until the transfer ends
  std::size_t max_response_bytes_;
  curl_handle_pool& pool_;
  CURL* easy_ = nullptr;
  curl_parsed_url url_;  // the handle may point at it (CURLOPT_CURLU): goes back with it
  curl_header_list headers_;
  std::error_code setup_error_;
  bool fresh_handle_ = false;
  bool large_buffer_ = false;
  bool handle_ready_ = false;  // its transport-wide options are set: it may go back to the pool
  http_response response_;
  std::size_t received_ = 0;
  bool started_ = false;
  bool too_large_ = false;
  // A GET or HEAD: curl may send it again on a fresh connection when a kept one dies under it.
  bool resend_safe_ = false;
  // curl was about to send this write a second time, and was stopped (on_prereq).
  bool resend_refused_ = false;
};

}  // namespace idem::detail
