#pragma once
// Small helpers shared by the integration tests that talk to a running mock server: reading a
// problem's name and a stats counter, and waiting for a server-side event that can only be
// observed by asking the server.

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <thread>

#include "tests/support/http/api_client.hpp"
#include "tests/support/http/http_client.hpp"

namespace idem::kit {

/// The problem name of an RFC 9457 answer: its `type` without "https://idem.example/problems/"
/// (the whole `type` if it lacks that prefix, "" if the body is not a problem object).
[[nodiscard]] std::string problem_name(const http_response& res);

/// One counter of GET /_mock/stats (-1 when it is missing, so that a comparison fails).
[[nodiscard]] std::int64_t stat(api_client& api, std::string_view name);

/// Asks `condition` again and again until it holds or `limit` has passed; true if it held. Meant
/// for conditions that are server round trips (each ask paces the loop), e.g. a stats counter
/// that shows a request reached a certain stage. The limit only turns a hang into a failure.
template <class Condition>
[[nodiscard]] bool eventually(Condition condition,
                              std::chrono::milliseconds limit = std::chrono::seconds(20)) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < deadline) {
    if (condition()) return true;
    std::this_thread::yield();
  }
  return condition();
}

}  // namespace idem::kit
