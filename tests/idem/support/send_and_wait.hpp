#pragma once
// Shared by the transport tests (curl_transport_test, curl_transport_tls_test,
// curl_transport_client_cert_test, curl_transport_proxy_test): drive the test's io_context until
// something happened, and send one request that way. The bound only turns a hang into a failure;
// it is never a timing assertion.

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <chrono>
#include <optional>
#include <string>
#include <utility>

#include "idem/transport.hpp"

namespace idem::test {

inline constexpr std::chrono::seconds hang_limit{30};

/// Runs `io` until `done()` holds; false if `limit` passed first.
template <class Done>
bool run_until(boost::asio::io_context& io, Done done,
               std::chrono::steady_clock::duration limit = hang_limit) {
  using namespace std::chrono_literals;
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    io.run_one_for(20ms);
    if (io.stopped()) io.restart();
  }
  return true;
}

/// A GET of `url` that must end within `timeout`.
inline http_request get_request(std::string url,
                                std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
  http_request r;
  r.method = "GET";
  r.url = std::move(url);
  r.timeout = timeout;
  return r;
}

/// Sends `req` through `t` (whose executor is `io`'s) and runs `io` until it completes; a
/// default result, and a test failure, if it never does.
inline transport_result send_and_wait(boost::asio::io_context& io, transport& t, http_request req) {
  std::optional<transport_result> out;
  t.async_send(std::move(req), [&](transport_result r) { out = std::move(r); });
  EXPECT_TRUE(run_until(io, [&] { return out.has_value(); })) << "no completion";
  return out.value_or(transport_result{});
}

}  // namespace idem::test
