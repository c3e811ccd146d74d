#pragma once
// A request's header fields as the list CURLOPT_HTTPHEADER reads (private to the idem library).
//
// curl_slist_append makes a node and a copy of the line per field, after the line itself was
// built: three allocations or more per field and attempt. Here the nodes and every line go into
// one buffer, one allocation in all. That is sound because curl only reads the list (it copies
// whatever it changes) and does not care who made the nodes; these are ours, never given to
// curl_slist_free_all.

#include <curl/curl.h>

#include <cstddef>
#include <memory>
#include <optional>
#include <string_view>
#include <system_error>

#include "idem/http_headers.hpp"

namespace idem::detail {

/// Thread-safety: none. Must stay alive, unchanged, while curl may read it.
class curl_header_list {
 public:
  /// The lines of `headers`, plus `User-Agent: user_agent` when `headers` has none and
  /// `user_agent` is not empty, plus, for a request that posts `posted_bytes` of body (nullopt:
  /// none, as a GET), what takes away the fields curl would add to a post of its own: its
  /// `Content-Type` (when `headers` has none) and, past 1,024 bytes, its `Expect` (when
  /// `headers` has none). `transport_errc::invalid_request` for a field (the user agent
  /// included) that could end its line or that curl would read as something else; then nothing
  /// is set.
  ///
  /// The user agent is a line of this list rather than CURLOPT_USERAGENT: curl 7.88 formats
  /// that option into a line of its own on every request, byte by byte, before formatting the
  /// line again into the request (about 115 instructions a byte, each time).
  [[nodiscard]] std::error_code assign(const header_list& headers, std::string_view user_agent,
                                       std::optional<std::size_t> posted_bytes);

  /// The list for CURLOPT_HTTPHEADER (nullptr before assign()).
  [[nodiscard]] curl_slist* get() noexcept { return first_; }

 private:
  std::unique_ptr<std::byte[]> storage_;  // the nodes, then their lines (each ended by a NUL)
  curl_slist* first_ = nullptr;
};

}  // namespace idem::detail
