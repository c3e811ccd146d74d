// A scripted walk through the mock server's idempotency protocol, with plain libcurl so every
// header is visible: create an order, lose the response, retry with the same key, get the stored
// response replayed; pay it through a 502 that came after the commit, retry, replayed; then the
// server's own counts show one order and one charge.
//
//   mock_walkthrough http://127.0.0.1:PORT ADMIN_TOKEN
//
// The server must run with the demo's fault rules (scripts/demo-faults.json).
#include <curl/curl.h>

#include <cstdio>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>

#include "idem/idempotency_key.hpp"

namespace {

struct http_answer {
  CURLcode error = CURLE_OK;
  long status = 0;
  std::string replayed;  // Idempotent-Replayed header, if any
  std::string body;
};

size_t on_body(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

size_t on_header(char* data, size_t size, size_t n, void* out) {
  std::string line(data, size * n);
  const std::string name = "idempotent-replayed:";
  if (line.size() > name.size()) {
    std::string lower = line.substr(0, name.size());
    for (auto& c : lower)
      c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == name) {
      auto value = line.substr(name.size());
      value.erase(0, value.find_first_not_of(" \t"));
      value.erase(value.find_last_not_of(" \t\r\n") + 1);
      static_cast<http_answer*>(out)->replayed = value;
    }
  }
  return size * n;
}

http_answer send(const std::string& method, const std::string& url, const std::string& token,
                 const std::string& key, const std::string& body) {
  http_answer answer;
  CURL* curl = curl_easy_init();
  curl_slist* headers = nullptr;
  headers = curl_slist_append(headers, ("Authorization: Bearer " + token).c_str());
  headers = curl_slist_append(headers, "Content-Type: application/json");
  if (!key.empty()) headers = curl_slist_append(headers, ("Idempotency-Key: " + key).c_str());
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (!body.empty()) curl_easy_setopt(curl, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer.body);
  curl_easy_setopt(curl, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(curl, CURLOPT_HEADERDATA, &answer);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, 10000L);
  answer.error = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &answer.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return answer;
}

void show(const std::string& step, const http_answer& a) {
  if (a.error != CURLE_OK) {
    std::cout << "  " << step << ": no response (" << curl_easy_strerror(a.error)
              << ") -> outcome unknown, keep the key\n";
    return;
  }
  std::cout << "  " << step << ": HTTP " << a.status
            << (a.replayed.empty() ? "" : ", Idempotent-Replayed: " + a.replayed) << '\n';
}

// Retries with the same key until a definite answer (at most `attempts` sends).
http_answer send_until_definite(const std::string& url, const std::string& token,
                                const std::string& key, const std::string& body) {
  http_answer a;
  for (int attempt = 1; attempt <= 5; ++attempt) {
    a = send("POST", url, token, key, body);
    show("attempt " + std::to_string(attempt), a);
    if (a.error == CURLE_OK && a.status < 500) break;
  }
  return a;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: mock_walkthrough BASE_URL ADMIN_TOKEN\n";
    return 2;
  }
  const std::string base = argv[1];
  const std::string admin = argv[2];
  const std::string token = "demo-merchant";
  curl_global_init(CURL_GLOBAL_DEFAULT);

  const auto order_key = idem::idempotency_key::mint();
  const nlohmann::json order{
      {"merchant_order_id", "cart-" + idem::idempotency_key::mint().str()},
      {"customer_id", "cus_42"},
      {"currency", "EUR"},
      {"amount_minor", 2500},
      {"items", {{{"sku", "mug"}, {"quantity", 1}, {"unit_price_minor", 2500}}}}};
  std::cout << "1. Create an order (Idempotency-Key " << order_key.str() << ")\n"
            << "   the server commits it, then the fault rule drops the response\n";
  auto created = send_until_definite(base + "/v1/orders", token, order_key.str(), order.dump());
  if (created.status != 201) {
    std::cerr << "unexpected answer: " << created.body << '\n';
    return 1;
  }
  const auto order_id = nlohmann::json::parse(created.body).at("id").get<std::string>();
  std::cout << "   -> order " << order_id << " (the retry got the stored response back)\n\n";

  const auto pay_key = idem::idempotency_key::mint();
  const nlohmann::json payment{
      {"amount_minor", 2500}, {"currency", "EUR"}, {"payment_method", "card_visa"}};
  std::cout << "2. Pay it (Idempotency-Key " << pay_key.str() << ")\n"
            << "   the server charges and commits, then answers 502 instead\n";
  auto paid = send_until_definite(base + "/v1/orders/" + order_id + "/payments", token,
                                  pay_key.str(), payment.dump());
  if (paid.status != 201) {
    std::cerr << "unexpected answer: " << paid.body << '\n';
    return 1;
  }
  std::cout << "   -> payment " << nlohmann::json::parse(paid.body).at("id").get<std::string>()
            << "\n\n";

  auto stats = nlohmann::json::parse(send("GET", base + "/_mock/stats", admin, "", "").body);
  std::cout << "3. What the server saw\n"
            << "   orders: " << stats["orders"]
            << ", provider charges: " << stats["provider_charges"]
            << ", replays: " << stats["replays"]
            << ", faults injected: " << stats["faults_injected"]
            << ", orders charged twice: " << stats["orders_with_multiple_charges"] << '\n';
  curl_global_cleanup();
  const bool exactly_once = stats["orders"] == 1 && stats["provider_charges"] == 1;
  std::cout << (exactly_once ? "   exactly once, although two responses were lost.\n"
                             : "   DUPLICATES: something is wrong.\n");
  return exactly_once ? 0 : 1;
}
