#pragma once
// A server on which a test starts a create whose execution a fault holds (`delay`,
// `hold_in_processing`), and sends its duplicate while the first request still runs.

#include <chrono>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/http/api_client.hpp"
#include "tests/support/servers/running_server.hpp"

namespace idem::kit {

/// The mock server in this process with `lease`, answering `Prefer: respond-async` with 202 once
/// a request has run 200 ms, and two connections to it: `api` for the first request and the
/// admin calls, `duplicate` for the request that races it. A fixture inherits it.
struct held_create_server {
  explicit held_create_server(std::chrono::milliseconds lease = std::chrono::seconds(30))
      : server{options_with(lease)} {}

  /// Puts the fault configuration `faults` (it should hold the next create), then sends
  /// POST /v1/orders (`key`, `merchant_order_id`) with `Prefer: respond-async` on `api` and
  /// returns the answer: a 202 proves that the execution holds the key (an unheld create answers
  /// in one step).
  http_result start_held_create(const nlohmann::json& faults, const std::string& key,
                                const std::string& merchant_order_id) {
    api.set_faults(faults);
    return api.post(orders, key, order_body(merchant_order_id), {{"Prefer", "respond-async"}});
  }

  running_server server;
  api_client api{server.port()};
  api_client duplicate{server.port()};

 private:
  static mock::server_options options_with(std::chrono::milliseconds lease) {
    auto options = test_server_options();
    options.lease = lease;
    options.async_after = std::chrono::milliseconds(200);
    return options;
  }
};

}  // namespace idem::kit
