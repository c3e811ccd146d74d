// A quick load run against idem-mock-server: C client threads, each with one keep-alive
// connection, create orders with fresh keys (and optionally replay each once), then print
// requests/s and latency percentiles as JSON. Bounded: N requests, loopback only.
//
//   idem_mock_load --port PORT [--requests 20000] [--concurrency 8] [--replay]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/http/api_client.hpp"

namespace {

struct options {
  std::uint16_t port = 0;
  int requests = 20000;
  int concurrency = 8;
  bool replay = false;
};

options parse(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string flag = argv[i];
    if (flag == "--port") o.port = static_cast<std::uint16_t>(std::stoi(argv[i + 1]));
    if (flag == "--requests") o.requests = std::stoi(argv[i + 1]);
    if (flag == "--concurrency") o.concurrency = std::stoi(argv[i + 1]);
  }
  for (int i = 1; i < argc; ++i) {
    if (std::string{argv[i]} == "--replay") o.replay = true;
  }
  return o;
}

}  // namespace

int main(int argc, char** argv) {
  auto opts = parse(argc, argv);
  if (opts.port == 0) {
    std::cerr << "usage: idem_mock_load --port PORT [--requests N] [--concurrency C] [--replay]\n";
    return 2;
  }
  std::atomic<int> next{0};
  std::atomic<int> failures{0};
  std::vector<std::vector<double>> latencies(static_cast<std::size_t>(opts.concurrency));
  auto run_id = std::to_string(std::chrono::steady_clock::now().time_since_epoch().count());
  auto start = std::chrono::steady_clock::now();
  std::vector<std::thread> threads;
  for (int t = 0; t < opts.concurrency; ++t) {
    threads.emplace_back([&, t] {
      idem::kit::api_client client{opts.port, "load-tenant"};
      auto& mine = latencies[static_cast<std::size_t>(t)];
      for (int i = next++; i < opts.requests; i = next++) {
        auto id = run_id + "-" + std::to_string(i);
        auto body = idem::kit::order_body("load-" + id);
        for (int send = 0; send < (opts.replay ? 2 : 1); ++send) {
          auto t0 = std::chrono::steady_clock::now();
          auto r = client.post("/v1/orders", "key-" + id, body);
          mine.push_back(
              std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0)
                  .count());
          if (!r.ok() || r.res.status != 201) ++failures;
        }
      }
    });
  }
  for (auto& th : threads)
    th.join();
  double elapsed_s =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<double> all;
  for (auto& l : latencies)
    all.insert(all.end(), l.begin(), l.end());
  std::sort(all.begin(), all.end());
  auto pct = [&](double p) {
    return all.empty() ? 0.0
                       : all[std::min(all.size() - 1, static_cast<std::size_t>(p * all.size()))];
  };
  nlohmann::json out{{"requests", all.size()},
                     {"failures", failures.load()},
                     {"concurrency", opts.concurrency},
                     {"elapsed_s", elapsed_s},
                     {"requests_per_s", all.size() / elapsed_s},
                     {"p50_ms", pct(0.50)},
                     {"p99_ms", pct(0.99)}};
  std::cout << out.dump() << '\n';
  return failures.load() == 0 ? 0 : 1;
}
