#include "curl_parsed_url.hpp"

#include <utility>

namespace idem::detail {

curl_parsed_url::~curl_parsed_url() {
  reset();
}

curl_parsed_url::curl_parsed_url(curl_parsed_url&& other) noexcept
    : handle_(std::exchange(other.handle_, nullptr)), parsed_(std::move(other.parsed_)) {}

curl_parsed_url& curl_parsed_url::operator=(curl_parsed_url&& other) noexcept {
  if (this != &other) {
    reset();
    handle_ = std::exchange(other.handle_, nullptr);
    parsed_ = std::move(other.parsed_);
  }
  return *this;
}

void curl_parsed_url::reset() noexcept {
  curl_url_cleanup(handle_);  // accepts nullptr
  handle_ = nullptr;
}

CURLU* curl_parsed_url::parse(std::string_view url) noexcept {
  if (handle_ != nullptr && parsed_ == url) return handle_;
  try {
    parsed_.assign(url);  // before parsing: the string must end in a NUL for curl
  } catch (...) {         // out of memory
    reset();
    return nullptr;
  }
  if (handle_ == nullptr) handle_ = curl_url();
  if (handle_ == nullptr) return nullptr;
  // The flags libcurl parses CURLOPT_URL with (lib/url.c, parseurlandfillconn) when neither
  // CURLOPT_DISALLOW_USERNAME_IN_URL nor CURLOPT_PATH_AS_IS is set, as for every idem request.
  if (curl_url_set(handle_, CURLUPART_URL, parsed_.c_str(),
                   CURLU_GUESS_SCHEME | CURLU_NON_SUPPORT_SCHEME) != CURLUE_OK) {
    reset();  // a failed set may leave the handle half changed
    return nullptr;
  }
  return handle_;
}

}  // namespace idem::detail
