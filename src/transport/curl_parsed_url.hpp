#pragma once
// A request URL parsed once by libcurl's URL parser and kept with the easy handle that uses it
// (private to the idem library).
//
// Given a URL string (CURLOPT_URL), libcurl parses it again for every transfer and then writes
// it out again in normalised form: about 12,000 instructions of a request that costs it about
// 93,000 in all (bench/perf/raw_curl_load.cpp, counted by callgrind). Given a parsed handle
// (CURLOPT_CURLU), it copies that instead. A pooled easy handle keeps its parsed URL, so the
// next request to the same URL (every create of an API goes to one) parses nothing.

#include <curl/curl.h>

#include <string>
#include <string_view>

namespace idem::detail {

/// Thread-safety: none; owned by one easy handle (in the pool or in one curl_request).
class curl_parsed_url {
 public:
  curl_parsed_url() noexcept = default;
  ~curl_parsed_url();
  curl_parsed_url(curl_parsed_url&& other) noexcept;
  curl_parsed_url& operator=(curl_parsed_url&& other) noexcept;
  curl_parsed_url(const curl_parsed_url&) = delete;
  curl_parsed_url& operator=(const curl_parsed_url&) = delete;

  /// `url` parsed as libcurl parses CURLOPT_URL (a missing scheme guessed, any scheme taken:
  /// CURLOPT_PROTOCOLS_STR still decides which may be used), or as it was parsed last time if
  /// it is the same string. nullptr if the parser rejects it or memory runs out: the caller
  /// then leaves the URL to libcurl, which reports its own error for it. The handle is the
  /// same one from call to call (parsed again in place) until this object ends: an easy
  /// handle may keep pointing at it, but must not use it beyond that.
  [[nodiscard]] CURLU* parse(std::string_view url) noexcept;

 private:
  void reset() noexcept;

  CURLU* handle_ = nullptr;
  std::string parsed_;  // the URL handle_ holds while valid_
  bool valid_ = false;
};

}  // namespace idem::detail
