#pragma once
// A fault-injecting HTTP/1.1 reverse proxy for tests: put it between a client and any server on
// loopback (the mock server, or an idempotency layer written by others) to lose answers the way
// a network does, without the server's help. Each request is forwarded whole to the upstream on
// a connection of its own; a fault, drawn per request from a seeded generator, decides what the
// client gets back.

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <random>
#include <string_view>
#include <thread>

namespace idem::kit {

/// What the proxy does to one request.
enum class proxy_fault {
  none,                ///< forwards it and returns the answer
  drop_after_answer,   ///< the server executes and answers; the client's connection is closed
                       ///< without the answer
  drop_while_running,  ///< forwards it, then closes the client's connection before the answer
                       ///< arrives; the answer is still read, so the server's handler completes
  delay_answer,        ///< holds the answer for `fault_proxy_options::delay`, then returns it
};

[[nodiscard]] std::string_view to_string(proxy_fault f) noexcept;

struct fault_proxy_options {
  std::uint16_t upstream_port = 0;  ///< the server: 127.0.0.1:upstream_port
  /// Probability of each fault per request; their sum should not exceed 1 (the rest: none).
  double drop_after_answer = 0.0;
  double drop_while_running = 0.0;
  double delay_answer = 0.0;
  std::chrono::milliseconds delay{250};  ///< how long `delay_answer` holds an answer
  /// GET and HEAD requests (lookups) are faulted too; by default only writes are.
  bool faults_on_reads = false;
  std::uint64_t seed = 1;  ///< same seed and same order of requests: same faults
};

/// The faults drawn for a sequence of requests: deterministic for a seed. Not thread-safe.
class fault_plan {
 public:
  explicit fault_plan(const fault_proxy_options& options);
  /// The fault for the next request (each call draws one number, whatever the outcome).
  [[nodiscard]] proxy_fault next();

 private:
  double drop_after_answer_;
  double drop_while_running_;
  double delay_answer_;
  std::mt19937_64 rng_;
};

/// What the proxy did so far. Readable from any thread while it runs.
struct fault_proxy_counters {
  std::uint64_t requests = 0;           ///< complete requests read from clients
  std::uint64_t drop_after_answer = 0;  ///< faults injected, by kind
  std::uint64_t drop_while_running = 0;
  std::uint64_t delay_answer = 0;
  std::uint64_t answers_dropped = 0;  ///< upstream answers read and never returned to the client
  std::uint64_t upstream_errors = 0;  ///< requests the upstream failed to answer (502 or drop)
  /// Requests being forwarded: their upstream exchange has not ended yet (0: the server is
  /// idle, as far as the proxy's requests go).
  std::uint64_t in_flight = 0;
  [[nodiscard]] std::uint64_t faults() const noexcept {
    return drop_after_answer + drop_while_running + delay_answer;
  }
};

/// The proxy, listening on 127.0.0.1:0, run by one background thread with its own io_context.
/// Keep-alive towards clients; one request at a time per client connection. The destructor
/// closes every connection and joins the thread. Thread-safety: port() and counters() may be
/// called from any thread.
class fault_proxy {
 public:
  explicit fault_proxy(fault_proxy_options options);
  ~fault_proxy();
  fault_proxy(const fault_proxy&) = delete;
  fault_proxy& operator=(const fault_proxy&) = delete;

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  [[nodiscard]] fault_proxy_counters counters() const noexcept;

  struct state;  // shared with the connections in flight (fault_proxy.cpp)

 private:
  boost::asio::io_context io_{1};
  std::shared_ptr<state> state_;
  std::thread thread_;
  std::uint16_t port_ = 0;
};

}  // namespace idem::kit
