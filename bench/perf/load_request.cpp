#include "load_request.hpp"

#include <cstdio>
#include <exception>

namespace perf::load {

bool parse(const char* program, int argc, char** argv, options& o) {
  bool ok = argc % 2 == 1;  // flag-value pairs
  try {
    for (int i = 1; ok && i + 1 < argc; i += 2) {
      const std::string flag = argv[i];
      const std::string value = argv[i + 1];
      if (flag == "--url")
        o.url = value;
      else if (flag == "--token")
        o.token = value;
      else if (flag == "--path")
        o.path = value;
      else if (flag == "--requests")
        o.requests = std::stol(value);
      else if (flag == "--concurrency")
        o.concurrency = std::stol(value);
      else if (flag == "--timeout-ms")
        o.timeout_ms = std::stol(value);
      else if (flag == "--tuned")
        o.tuned = std::stol(value) != 0;
      else
        ok = false;
    }
  } catch (const std::exception&) {  // a number that is not one
    ok = false;
  }
  ok = ok && !o.url.empty() && o.requests > 0 && o.concurrency > 0 && o.timeout_ms > 0;
  if (!ok) {
    std::fprintf(stderr,
                 "usage: %s --url URL --token T --requests N --concurrency C "
                 "[--path /v1/orders] [--timeout-ms 30000] [--tuned 1]\n",
                 program);
  }
  return ok;
}

std::string fresh_key(std::mt19937_64& rng) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(36);
  const std::uint64_t halves[2] = {rng(), rng()};
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out.push_back('-');
    const auto nibble = (halves[i / 16] >> (4 * (i % 16))) & 0xF;
    out.push_back(i == 12 ? '4' : hex[nibble]);
  }
  return out;
}

std::string order_body(const std::string& run, long n) {
  const long price = 100 + (n % 50) * 10;
  return R"({"amount_minor":)" + std::to_string(price * 2) +
         R"(,"currency":"EUR","customer_id":"load-customer-)" + std::to_string(n % 100) +
         R"(","items":[{"quantity":2,"sku":"sku-)" + std::to_string(n % 20) +
         R"(","unit_price_minor":)" + std::to_string(price) + R"(}],"merchant_order_id":"load-)" +
         run + "-" + std::to_string(n) + R"("})";
}

void print_summary(long requests, long ok, double wall_s) {
  std::printf(R"({"requests":%ld,"ok":%ld,"wall_s":%.6f,"requests_per_s":%.1f})"
              "\n",
              requests, ok, wall_s, static_cast<double>(requests) / wall_s);
}

}  // namespace perf::load
