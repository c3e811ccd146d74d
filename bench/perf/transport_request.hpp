#pragma once
// The create-order POST that idem_transport_load and idem_floor_load hand idem's transport: the
// request of load_request.hpp as an idem::http_request, built the same way in both, so that
// what differs between the two programs is only what the floor adds.

#include <chrono>
#include <string>
#include <utility>

#include "idem/transport.hpp"
#include "load_request.hpp"

namespace perf::load {

/// What every request of one run shares (URL, Authorization line, the run's name, timeout),
/// and the request for order `n` under a given key.
class transport_request {
 public:
  transport_request(const options& o, std::string run)
      : url_(o.url + o.path),
        auth_("Bearer " + o.token),
        run_(std::move(run)),
        timeout_(o.timeout_ms) {}

  [[nodiscard]] idem::http_request operator()(std::string key, long n) const {
    idem::http_request req;
    req.method = "POST";
    req.url = url_;
    req.headers = {{"Idempotency-Key", std::move(key)},
                   {"Authorization", auth_},
                   {"Content-Type", "application/json"},
                   {"Accept", "application/json"}};
    req.body = order_body(run_, n);
    req.timeout = timeout_;
    return req;
  }

 private:
  std::string url_;
  std::string auth_;
  std::string run_;
  std::chrono::milliseconds timeout_;
};

}  // namespace perf::load
