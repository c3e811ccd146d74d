#include "transport/curl_request.hpp"

#include <algorithm>
#include <string>
#include <string_view>
#include <utility>

#include "idem/transport_error.hpp"
#include "transport/curl_failure.hpp"

namespace idem::detail {
namespace {

// Without the blanks (SP, HTAB) at either end. A loop per end: a value usually has one blank in
// front and none behind, and find_first_not_of searched its set with a call per byte.
std::string_view trim(std::string_view s) noexcept {
  const auto blank = [](char c) { return c == ' ' || c == '\t'; };
  while (!s.empty() && blank(s.front()))
    s.remove_prefix(1);
  while (!s.empty() && blank(s.back()))
    s.remove_suffix(1);
  return s;
}

}  // namespace

curl_request::curl_request(http_request req, const curl_transport_options& options,
                           const curl_proxy_settings& proxy, curl_handle_pool& pool)
    : max_response_bytes_(options.max_response_bytes), pool_(pool) {
  auto handle = pool_.take();
  easy_ = handle.easy;
  fresh_handle_ = handle.fresh;
  large_buffer_ = handle.large_buffer;
  url_ = std::move(handle.url);
  if (easy_ == nullptr) {
    setup_error_ = std::make_error_code(std::errc::not_enough_memory);
    return;
  }
  if (fresh_handle_) configure_handle(options, proxy);
  handle_ready_ = !setup_error_;
  if (handle_ready_) configure_request(req, options, proxy);
}

curl_request::~curl_request() {
  if (easy_ == nullptr) return;
  if (!handle_ready_) {
    // Its transport-wide options may be half set: not a handle the next request can take.
    curl_easy_cleanup(easy_);
    return;
  }
  // Nothing the handle keeps may point into this object: the body, the header lines and the
  // callbacks' data go with it. The rest is set again by the next request that takes it.
  curl_easy_setopt(easy_, CURLOPT_POSTFIELDS, static_cast<const char*>(nullptr));
  curl_easy_setopt(easy_, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(-1));
  curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, static_cast<curl_slist*>(nullptr));
  curl_easy_setopt(easy_, CURLOPT_WRITEDATA, static_cast<void*>(nullptr));
  curl_easy_setopt(easy_, CURLOPT_HEADERDATA, static_cast<void*>(nullptr));
  curl_easy_setopt(easy_, CURLOPT_PREREQDATA, static_cast<void*>(nullptr));
  curl_easy_setopt(easy_, CURLOPT_PRIVATE, static_cast<void*>(nullptr));
  // An answer larger than the small buffer took more than one read: the handle's next ones
  // get the large buffer (set here, out of any transfer; curl allocates it when one starts).
  if (!large_buffer_ && received_ > static_cast<std::size_t>(small_receive_buffer) &&
      curl_easy_setopt(easy_, CURLOPT_BUFFERSIZE, large_receive_buffer) == CURLE_OK) {
    large_buffer_ = true;
  }
  pool_.give_back(easy_, std::move(url_), large_buffer_);
}

namespace {

// Sets options until one fails; `rc` is the first failure (or CURLE_OK).
struct option_setter {
  CURL* easy;
  CURLcode rc = CURLE_OK;
  template <class Value>
  void operator()(CURLoption option, Value value) {
    if (rc == CURLE_OK) rc = curl_easy_setopt(easy, option, value);
  }
  [[nodiscard]] std::error_code error() const {
    if (rc == CURLE_OK) return {};
    return {static_cast<int>(transport_errc::curl_error_base) + static_cast<int>(rc),
            transport_category()};
  }
};

}  // namespace

void curl_request::configure_handle(const curl_transport_options& options,
                                    const curl_proxy_settings& proxy) {
  // What every request of the transport shares: set once per handle, kept while it is pooled.
  // After the first failure nothing more is set: a request that is not fully set up is never
  // started, so which option failed is all there is to report.
  option_setter set{easy_};
  // Only the web: a caller's URL must never make curl read files or speak other protocols.
  set(CURLOPT_PROTOCOLS_STR, "http,https");
  set(CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
  // A POST must not be re-sent to wherever a 3xx points: the answer goes back as a response.
  set(CURLOPT_FOLLOWLOCATION, 0L);
  // Signals are process-wide; DNS timeouts come from the threaded resolver instead.
  set(CURLOPT_NOSIGNAL, 1L);
  set(CURLOPT_SSL_VERIFYPEER, 1L);
  set(CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options.tls.ca_file.empty()) set(CURLOPT_CAINFO, options.tls.ca_file.c_str());
  if (!options.tls.ca_path.empty()) set(CURLOPT_CAPATH, options.tls.ca_path.c_str());
  if (!options.tls.client_cert_file.empty()) {
    set(CURLOPT_SSLCERT, options.tls.client_cert_file.c_str());
    set(CURLOPT_SSLCERTTYPE, "PEM");
    // Without CURLOPT_SSLKEY, curl's OpenSSL backend reads the key from the certificate file.
    if (!options.tls.client_key_file.empty()) {
      set(CURLOPT_SSLKEY, options.tls.client_key_file.c_str());
      set(CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (!options.tls.client_key_password.empty()) {
      set(CURLOPT_KEYPASSWD, options.tls.client_key_password.c_str());
    }
  }
  // Both set, so that curl reads no variable of the environment (curl_proxy_settings.hpp).
  set(CURLOPT_NOPROXY, proxy.no_proxy.c_str());
  if (!proxy.by_scheme()) set(CURLOPT_PROXY, proxy.http.c_str());
  // No CURLOPT_USERAGENT: the user agent is one of the request's header lines (set_headers).
  set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1L);  // a proxy's CONNECT answer is not the response
  // Declared oversize bodies fail before they are read; the callbacks catch the rest.
  set(CURLOPT_MAXFILESIZE_LARGE, static_cast<curl_off_t>(options.max_response_bytes));
  set(CURLOPT_WRITEFUNCTION, &curl_request::on_body);
  set(CURLOPT_HEADERFUNCTION, &curl_request::on_header);
  set(CURLOPT_PREREQFUNCTION, &curl_request::on_prereq);
  set(CURLOPT_BUFFERSIZE, small_receive_buffer);
  setup_error_ = set.error();
}

void curl_request::configure_request(http_request& req, const curl_transport_options& options,
                                     const curl_proxy_settings& proxy) {
  // Everything a request sets for itself, every time: a kept handle still has its last
  // request's values (its URL, timeouts, method).
  option_setter set{easy_};
  const long total_ms = static_cast<long>(req.timeout.count());
  const long connect_ms =
      options.connect_timeout.count() > 0
          ? std::min(total_ms, static_cast<long>(options.connect_timeout.count()))
          : total_ms;
  // The URL parsed by curl's own parser, once for all the requests a pooled handle sends to it
  // (curl_parsed_url.hpp); curl uses that instead of parsing CURLOPT_URL, which it keeps for
  // what it reports (CURLINFO_EFFECTIVE_URL). A URL the parser rejects is left to curl, to
  // fail as it always did (nullptr clears the last request's parsed URL).
  set(CURLOPT_URL, req.url.c_str());
  set(CURLOPT_CURLU, url_.parse(req.url));
  if (proxy.by_scheme()) set(CURLOPT_PROXY, proxy.for_url(req.url).c_str());
  set(CURLOPT_TIMEOUT_MS, total_ms);
  set(CURLOPT_CONNECTTIMEOUT_MS, connect_ms);

  const char* custom_method = nullptr;
  std::optional<std::size_t> posted_bytes;  // none: curl sends no body
  if (req.method == "GET" && req.body.empty()) {
    set(CURLOPT_HTTPGET, 1L);  // also clears a kept handle's NOBODY
    resend_safe_ = true;
  } else if (req.method == "HEAD") {
    set(CURLOPT_NOBODY, 1L);
    resend_safe_ = true;
  } else {
    // POSTFIELDS with an explicit size sends `Content-Length` even for an empty body (a bodiless
    // POST otherwise goes out without one, which some servers answer with 411).
    // curl reads the body in place, while the transfer lasts: the one part of the request
    // this object keeps (curl copies the URL and the method, and the header lines live in
    // headers_), so that nothing else of it stays allocated while the request is in flight.
    body_ = std::move(req.body);
    set(CURLOPT_NOBODY, 0L);
    set(CURLOPT_POST, 1L);
    set(CURLOPT_POSTFIELDS, body_.data());
    set(CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body_.size()));
    posted_bytes = body_.size();
    if (req.method != "POST") custom_method = req.method.c_str();
  }
  // nullptr clears the method a kept handle's last request may have set.
  set(CURLOPT_CUSTOMREQUEST, custom_method);

  set(CURLOPT_WRITEDATA, static_cast<void*>(this));
  set(CURLOPT_HEADERDATA, static_cast<void*>(this));
  set(CURLOPT_PREREQDATA, static_cast<void*>(this));
  if (auto ec = set.error()) {
    setup_error_ = ec;
    return;
  }
  set_headers(req.headers, options.user_agent, posted_bytes);
}

void curl_request::set_headers(const header_list& headers, std::string_view user_agent,
                               std::optional<std::size_t> posted_bytes) {
  if (auto ec = headers_.assign(headers, user_agent, posted_bytes)) {
    setup_error_ = ec;
    return;
  }
  if (curl_easy_setopt(easy_, CURLOPT_HTTPHEADER, headers_.get()) != CURLE_OK) {
    setup_error_ = std::make_error_code(std::errc::not_enough_memory);
  }
}

bool curl_request::admit(std::size_t n) noexcept {
  if (n > max_response_bytes_ - received_) {
    too_large_ = true;
    return false;
  }
  received_ += n;
  return true;
}

std::size_t curl_request::on_body(char* data, std::size_t size, std::size_t count, void* self) {
  auto& r = *static_cast<curl_request*>(self);
  const std::size_t n = size * count;
  if (!r.admit(n)) return 0;  // any other count than n makes curl abort with CURLE_WRITE_ERROR
  r.response_.body.append(data, n);
  return n;
}

std::size_t curl_request::on_header(char* data, std::size_t size, std::size_t count, void* self) {
  auto& r = *static_cast<curl_request*>(self);
  const std::size_t n = size * count;
  if (!r.admit(n)) return 0;
  std::string_view line(data, n);
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
    line.remove_suffix(1);
  auto& headers = r.response_.headers;
  if (line.starts_with("HTTP/")) {
    // A new response begins: an interim 1xx answer's fields are not the final response's.
    headers.clear();
  } else if (!line.empty() && (line.front() == ' ' || line.front() == '\t')) {
    // Obsolete line folding (RFC 9112 section 5.2): the line continues the previous value.
    if (!headers.empty()) headers.back().second.append(" ").append(trim(line));
  } else if (auto colon = line.find(':'); colon != std::string_view::npos && colon > 0) {
    // Room for a typical answer's fields at once, rather than growing 1, 2, 4, 8.
    if (headers.capacity() == 0) headers.reserve(8);
    headers.emplace_back(std::string(line.substr(0, colon)),
                         std::string(trim(line.substr(colon + 1))));
  }
  return n;
}

int curl_request::on_prereq(void* self, char*, char*, int, int) {
  // Runs on every connection, new or reused, right before the request is written: from here
  // on the request may reach the server.
  auto& r = *static_cast<curl_request*>(self);
  // A second run means curl is about to send the request again within this transfer: a kept
  // connection died under the first send (Curl_retry_request: no answer byte on a reused
  // connection), which may have reached the server all the same. A GET or HEAD changes
  // nothing; any other request is a write that nobody would have counted as an attempt
  // (contract section 8), so curl is stopped and the transfer ends unknown: the caller's own
  // policy, with its backoff and budget, decides whether to send again.
  if (r.started_ && !r.resend_safe_) {
    r.resend_refused_ = true;
    return CURL_PREREQFUNC_ABORT;
  }
  r.started_ = true;
  return CURL_PREREQFUNC_OK;
}

bool curl_request::reused_connection() const {
  long connects = 0;
  curl_easy_getinfo(easy_, CURLINFO_NUM_CONNECTS, &connects);
  return started_ && connects == 0;
}

transport_result curl_request::finish(CURLcode code) {
  transport_result result;
  result.reused_connection = reused_connection();
  if (code == CURLE_OK) {
    long status = 0;
    curl_easy_getinfo(easy_, CURLINFO_RESPONSE_CODE, &status);
    response_.status = static_cast<int>(status);
    result.response = std::move(response_);
    return result;
  }
  if (resend_refused_) {
    // curl says "aborted by callback"; what happened is that the connection died under the
    // request, after it may have reached the server.
    result.ec = make_error_code(transport_errc::connection_lost);
    result.failure = transport_failure::unknown;
    result.reused_connection = true;
    return result;
  }
  curl_failure_facts facts{.code = code, .request_started = started_, .too_large = too_large_};
  curl_easy_getinfo(easy_, CURLINFO_OS_ERRNO, &facts.os_errno);
  curl_easy_getinfo(easy_, CURLINFO_REQUEST_SIZE, &facts.request_size);
  auto verdict = classify_curl_failure(facts);
  result.ec = verdict.ec;
  result.failure = verdict.failure;
  return result;
}

transport_result curl_request::abandon() const {
  return stopped_early(std::make_error_code(std::errc::operation_canceled));
}

transport_result curl_request::time_out() const {
  return stopped_early(make_error_code(transport_errc::timed_out));
}

transport_result curl_request::dropped() const {
  return stopped_early(make_error_code(transport_errc::connections_reset));
}

transport_result curl_request::stopped_early(std::error_code why) const {
  transport_result result;
  long request_size = 0;
  // Before curl starts a transfer, a kept handle still reports its last request's size. Before
  // the pre-request callback (started_), this request has not written a byte.
  if (easy_ != nullptr && started_) curl_easy_getinfo(easy_, CURLINFO_REQUEST_SIZE, &request_size);
  result.ec = why;
  result.failure = classify_abandoned(started_, request_size);
  result.reused_connection = easy_ != nullptr && reused_connection();
  return result;
}

}  // namespace idem::detail
