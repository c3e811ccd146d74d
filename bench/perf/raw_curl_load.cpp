// The baseline idem is measured against: the create-order POSTs of `idem-cli load`, written the
// way an app would write them directly on libcurl's multi interface (curl_multi_poll), with no
// retry, no journal, no classification. Same method, path, headers (a fresh Idempotency-Key per
// request, Authorization, Content-Type, Accept, and the User-Agent idem's transport sends by
// default) and the same body shape and size: the same bytes on the wire. C requests in
// flight, keep-alive, one easy handle per slot reused from request to request. Its command line
// and output: load_request.hpp. With --tuned 1 it drives curl as idem's transport does (the URL
// parsed once, the proxy given as options): a reference, not the baseline.
#include <curl/curl.h>

#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "idem/version.hpp"
#include "load_request.hpp"

namespace {

using perf::load::options;

// One in-flight slot: its easy handle and what the handle points into while it runs.
struct slot {
  CURL* easy = nullptr;
  curl_slist* headers = nullptr;
  std::string body;
  std::string answer;
};

std::size_t keep_answer(char* data, std::size_t size, std::size_t n, void* out) {
  static_cast<slot*>(out)->answer.append(data, size * n);
  return size * n;
}

void prepare(slot& s, const options& o, const std::string& url, CURLU* parsed,
             const std::string& run, long n, std::mt19937_64& rng) {
  curl_slist_free_all(s.headers);
  s.headers = nullptr;
  const std::string key = "Idempotency-Key: " + perf::load::fresh_key(rng);
  const std::string auth = "Authorization: Bearer " + o.token;
  // curl formats each line a byte at a time: a line idem sent and the baseline did not counted
  // as idem's cost in every comparison (the User-Agent line is 4,800 instructions a request here).
  for (const char* line :
       {key.c_str(), auth.c_str(), "Content-Type: application/json", "Accept: application/json",
        "User-Agent: idem/" IDEM_VERSION_STRING, "Expect:"}) {
    s.headers = curl_slist_append(s.headers, line);
  }
  s.body = perf::load::order_body(run, n);
  s.answer.clear();
  curl_easy_setopt(s.easy, CURLOPT_URL, url.c_str());
  if (parsed != nullptr) {
    curl_easy_setopt(s.easy, CURLOPT_CURLU, parsed);
    curl_easy_setopt(s.easy, CURLOPT_PROXY, "");
    curl_easy_setopt(s.easy, CURLOPT_NOPROXY, "");
  }
  curl_easy_setopt(s.easy, CURLOPT_HTTPHEADER, s.headers);
  curl_easy_setopt(s.easy, CURLOPT_POSTFIELDS, s.body.data());
  curl_easy_setopt(s.easy, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(s.body.size()));
  curl_easy_setopt(s.easy, CURLOPT_WRITEFUNCTION, &keep_answer);
  curl_easy_setopt(s.easy, CURLOPT_WRITEDATA, static_cast<void*>(&s));
  curl_easy_setopt(s.easy, CURLOPT_PRIVATE, static_cast<void*>(&s));
  curl_easy_setopt(s.easy, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(s.easy, CURLOPT_TIMEOUT_MS, o.timeout_ms);
  curl_easy_setopt(s.easy, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_1_1));
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  if (!perf::load::parse("idem_raw_curl_load", argc, argv, o)) return 2;
  curl_global_init(CURL_GLOBAL_DEFAULT);
  CURLM* multi = curl_multi_init();
  // Keep every connection of every slot: a closed connection would be the baseline's own cost.
  curl_multi_setopt(multi, CURLMOPT_MAXCONNECTS, o.concurrency);
  const std::string url = o.url + o.path;
  CURLU* parsed = nullptr;
  if (o.tuned) {
    parsed = curl_url();
    if (curl_url_set(parsed, CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return 2;
  }
  std::mt19937_64 rng{std::random_device{}()};
  const std::string run = perf::load::fresh_key(rng).substr(0, 8);
  std::vector<slot> slots(static_cast<std::size_t>(std::min(o.concurrency, o.requests)));
  long started = 0;
  long ok = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (auto& s : slots) {
    s.easy = curl_easy_init();
    prepare(s, o, url, parsed, run, started++, rng);
    curl_multi_add_handle(multi, s.easy);
  }
  int running = 1;
  while (running > 0) {
    curl_multi_perform(multi, &running);
    int left = 0;
    while (CURLMsg* m = curl_multi_info_read(multi, &left)) {
      if (m->msg != CURLMSG_DONE) continue;
      CURL* easy = m->easy_handle;
      long status = 0;
      curl_easy_getinfo(easy, CURLINFO_RESPONSE_CODE, &status);
      if (m->data.result == CURLE_OK && status >= 200 && status < 300) ++ok;
      curl_multi_remove_handle(multi, easy);
      if (started < o.requests) {
        void* p = nullptr;
        curl_easy_getinfo(easy, CURLINFO_PRIVATE, &p);
        prepare(*static_cast<slot*>(p), o, url, parsed, run, started++, rng);
        curl_multi_add_handle(multi, easy);
        running = 1;  // perform again before deciding that nothing runs
      }
    }
    if (running > 0) curl_multi_poll(multi, nullptr, 0, 1000, nullptr);
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (auto& s : slots) {
    curl_easy_cleanup(s.easy);
    curl_slist_free_all(s.headers);
  }
  curl_multi_cleanup(multi);
  curl_url_cleanup(parsed);
  curl_global_cleanup();
  perf::load::print_summary(o.requests, ok, wall);
  return ok == o.requests ? 0 : 1;
}
