#include "idem_soak/admin_client.hpp"

#include <curl/curl.h>

#include <memory>
#include <stdexcept>

namespace idem::soak {
namespace {

std::size_t append(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace

admin_client::admin_client(std::string base_url, std::string admin_token)
    : base_url_(std::move(base_url)), token_(std::move(admin_token)) {}

nlohmann::json admin_client::stats() const {
  return call("GET", "/_mock/stats", {});
}

nlohmann::json admin_client::faults() const {
  return call("GET", "/_mock/faults", {});
}

void admin_client::put_faults(const nlohmann::json& config) const {
  (void)call("PUT", "/_mock/faults", config.dump());
}

void admin_client::clear_faults() const {
  (void)call("DELETE", "/_mock/faults", {});
}

nlohmann::json admin_client::call(const char* method, const std::string& path,
                                  const std::string& body) const {
  const std::string what = std::string(method) + " " + base_url_ + path;
  const std::unique_ptr<CURL, void (*)(CURL*)> curl{curl_easy_init(), &curl_easy_cleanup};
  if (!curl) throw std::runtime_error(what + ": curl_easy_init failed");
  const std::string auth = "Authorization: Bearer " + token_;
  curl_slist* raw_headers = curl_slist_append(nullptr, auth.c_str());
  raw_headers = curl_slist_append(raw_headers, "Content-Type: application/json");
  const std::unique_ptr<curl_slist, void (*)(curl_slist*)> headers{raw_headers,
                                                                   &curl_slist_free_all};
  const std::string url = base_url_ + path;
  std::string answer;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method);
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &append);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
  curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, 10'000L);
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_NOPROXY, "*");  // loopback, whatever the environment says
  if (!body.empty()) {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE, static_cast<long>(body.size()));
  }
  if (const CURLcode rc = curl_easy_perform(c); rc != CURLE_OK) {
    throw std::runtime_error(what + ": " + curl_easy_strerror(rc));
  }
  long status = 0;
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status < 200 || status > 299) {
    throw std::runtime_error(what + ": HTTP " + std::to_string(status) + ": " + answer);
  }
  if (answer.empty()) return nlohmann::json::object();
  auto j = nlohmann::json::parse(answer, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) throw std::runtime_error(what + ": the answer is not JSON: " + answer);
  return j;
}

}  // namespace idem::soak
