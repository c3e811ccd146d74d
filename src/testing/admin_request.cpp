#include "testing/admin_request.hpp"

#include <curl/curl.h>

#include <memory>

namespace idem::kit::detail {
namespace {

std::size_t append(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

using easy_handle = std::unique_ptr<CURL, decltype(&curl_easy_cleanup)>;
using header_list = std::unique_ptr<curl_slist, decltype(&curl_slist_free_all)>;

}  // namespace

mock_result<nlohmann::json> admin_request(const std::string& base_url,
                                          const std::string& admin_token, const char* method,
                                          const char* path, const nlohmann::json& body) {
  const std::string what = std::string(method) + " " + path;
  const easy_handle curl{curl_easy_init(), &curl_easy_cleanup};
  if (!curl) return mock_error{mock_errc::request_failed, what + ": curl_easy_init failed"};
  const std::string auth = "Authorization: Bearer " + admin_token;
  const header_list headers{curl_slist_append(nullptr, auth.c_str()), &curl_slist_free_all};
  // Appending returns the list's head, or null (the list unchanged) when out of memory.
  if (!headers || curl_slist_append(headers.get(), "Content-Type: application/json") == nullptr) {
    return mock_error{mock_errc::request_failed, what + ": out of memory"};
  }
  const std::string payload = body.is_null() ? std::string{} : body.dump();
  const std::string url = base_url + path;
  std::string answer;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 30'000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");
  if (!body.is_null()) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, payload.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(payload.size()));
  }
  if (const CURLcode rc = curl_easy_perform(c); rc != CURLE_OK) {
    return mock_error{mock_errc::request_failed,
                      what + " to " + base_url + ": " + curl_easy_strerror(rc)};
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) {
    return mock_error{mock_errc::refused, what + ": HTTP " + std::to_string(status) +
                                              (answer.empty() ? "" : ": ") + answer};
  }
  if (answer.empty()) return nlohmann::json::object();
  auto j = nlohmann::json::parse(answer, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return mock_error{mock_errc::bad_answer, what + ": not JSON: " + answer};
  return j;
}

}  // namespace idem::kit::detail
