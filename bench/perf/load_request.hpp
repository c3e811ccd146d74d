#pragma once
// The create-order POST the baseline clients send (idem_raw_curl_load on libcurl alone,
// idem_transport_load on idem's transport alone, idem_floor_load with an intent layer's floor):
// what `idem-cli load` sends, the same method, path, headers and body shape, and the command line
// they share.
//
//   PROGRAM --url http://127.0.0.1:PORT --token T --requests N --concurrency C
//           [--path /v1/orders] [--timeout-ms 30000] [--tuned 1]
//
// --tuned 1 (idem_raw_curl_load only): the URL handed to curl parsed once (CURLOPT_CURLU) and
// the proxy settings as options (CURLOPT_PROXY/CURLOPT_NOPROXY, so curl reads no environment
// variable per request), as idem's transport does; a reference for what libcurl itself costs
// when driven that way. The targets compare with the plain baseline.
//
// Each prints one JSON line: {"requests", "ok" (2xx answers), "wall_s", "requests_per_s"}.

#include <chrono>
#include <cstdint>
#include <random>
#include <string>

namespace perf::load {

struct options {
  std::string url;
  std::string token;
  std::string path = "/v1/orders";
  long requests = 0;
  long concurrency = 16;
  long timeout_ms = 30'000;
  bool tuned = false;
};

/// Reads the command line above; on a bad one prints the usage of `program` and returns false.
[[nodiscard]] bool parse(const char* program, int argc, char** argv, options& o);

/// A random UUIDv4, as an app would mint with its UUID library (36 characters, like idem's keys).
[[nodiscard]] std::string fresh_key(std::mt19937_64& rng);

/// What idem-cli load sends for order `n` of the run `run` (tools/idem_cli/load/load_plan.cpp;
/// nlohmann's key order).
[[nodiscard]] std::string order_body(const std::string& run, long n);

/// The summary line each prints.
void print_summary(long requests, long ok, double wall_s);

/// Drives a load on an event loop (idem_transport_load, idem_floor_load): starts
/// `o.concurrency` requests with `run.next()` (each completion starts the next), runs `io` to its
/// end and prints the summary. Returns the exit status: 0 when every request was answered 2xx.
template <class EventLoop, class Run>
int drive(EventLoop& io, const options& o, Run& run) {
  const auto t0 = std::chrono::steady_clock::now();
  for (long i = 0; i < o.concurrency; ++i)
    run.next();
  io.run();
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  print_summary(o.requests, run.ok(), wall);
  return run.ok() == o.requests ? 0 : 1;
}

}  // namespace perf::load
