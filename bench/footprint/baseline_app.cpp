// The baseline for idem's share of an app's size (scripts/footprint.sh): example_callback's job
// done without idem. The same event loop (a Boost.Asio io_context), the same order posted once
// with libcurl (easy interface: no retry, no key minting, no journal, no classification), the
// same output on iostream. An app that already talks HTTP this way grows by the difference
// when it switches to idem.
//
//   idem_footprint_baseline_app http://127.0.0.1:PORT TOKEN
#include <curl/curl.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <iostream>
#include <string>

namespace {

std::size_t append(char* data, std::size_t size, std::size_t count, void* out) {
  static_cast<std::string*>(out)->append(data, size * count);
  return size * count;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: idem_footprint_baseline_app BASE_URL TOKEN\n";
    return 2;
  }
  boost::asio::io_context io;
  int exit_status = 1;
  boost::asio::post(io, [&] {
    curl_global_init(CURL_GLOBAL_DEFAULT);
    CURL* easy = curl_easy_init();
    if (easy == nullptr) return;
    const std::string url = std::string(argv[1]) + "/v1/orders";
    const std::string body =
        R"({"merchant_order_id":"cart-1","customer_id":"c-1","currency":"EUR",)"
        R"("amount_minor":1500,"items":[{"sku":"book","quantity":3,"unit_price_minor":500}]})";
    curl_slist* headers = nullptr;
    headers = curl_slist_append(headers, "Content-Type: application/json");
    headers = curl_slist_append(headers, ("Authorization: Bearer " + std::string(argv[2])).c_str());
    headers = curl_slist_append(headers, "Idempotency-Key: 6f1c2b9e-1d0a-4c53-9a6e-2f3b4c5d6e7f");
    std::string answer;
    curl_easy_setopt(easy, CURLOPT_URL, url.c_str());
    curl_easy_setopt(easy, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(easy, CURLOPT_POSTFIELDS, body.c_str());
    curl_easy_setopt(easy, CURLOPT_WRITEFUNCTION, &append);
    curl_easy_setopt(easy, CURLOPT_WRITEDATA, &answer);
    const CURLcode rc = curl_easy_perform(easy);
    long status = 0;
    curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
    std::cout << "order: HTTP " << status << " (" << curl_easy_strerror(rc) << ")\n"
              << answer << '\n';
    exit_status = rc == CURLE_OK && status / 100 == 2 ? 0 : 1;
    curl_slist_free_all(headers);
    curl_easy_cleanup(easy);
  });
  io.run();
  return exit_status;
}
