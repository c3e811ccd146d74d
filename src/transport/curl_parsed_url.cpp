#include "transport/curl_parsed_url.hpp"

#include <utility>

namespace idem::detail {

curl_parsed_url::~curl_parsed_url() {
  reset();
}

curl_parsed_url::curl_parsed_url(curl_parsed_url&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)),
      parsed_(std::move(other.parsed_)),
      valid_(std::exchange(other.valid_, false)) {}

curl_parsed_url& curl_parsed_url::operator=(curl_parsed_url&& other) noexcept {
  if (this != &other) {
    reset();
    handle_ = std::exchange(other.handle_, nullptr);
    parsed_ = std::move(other.parsed_);
    valid_ = std::exchange(other.valid_, false);
  }
  return *this;
}

void curl_parsed_url::reset() noexcept {
  curl_url_cleanup(handle_);  // accepts nullptr
  handle_ = nullptr;
  valid_ = false;
}

CURLU* curl_parsed_url::parse(std::string_view url) noexcept {
  if (valid_ && parsed_ == url) return handle_;
  // The handle is parsed again in place, never freed before this object ends: the easy handle
  // that owns this object may still point at it (its last request's CURLOPT_CURLU) until the
  // caller sets the option again, which an earlier failed option can prevent.
  valid_ = false;
  try {
    parsed_.assign(url);  // before parsing: the string must end in a NUL for curl
  } catch (...) {         // out of memory
    return nullptr;
  }
  if (handle_ == nullptr) handle_ = curl_url();
  if (handle_ == nullptr) return nullptr;
  // Emptied first: given a URL without a scheme (or an empty one), curl_url_set resolves it
  // against the URL the handle holds, as a relative reference ("b.example/y" after
  // "http://a.example/x" became http://a.example/b.example/y); CURLOPT_URL never does.
  if (curl_url_set(handle_, CURLUPART_URL, nullptr, 0) != CURLUE_OK) return nullptr;
  // The flags libcurl parses CURLOPT_URL with (lib/url.c, parseurlandfillconn) when neither
  // CURLOPT_DISALLOW_USERNAME_IN_URL nor CURLOPT_PATH_AS_IS is set, as for every idem request.
  // A URL it rejects leaves the handle as it may (not valid_ until a URL parses again).
  if (curl_url_set(handle_, CURLUPART_URL, parsed_.c_str(),
                   CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
    return nullptr;
  }
  valid_ = true;
  return handle_;
}

}  // namespace idem::detail
