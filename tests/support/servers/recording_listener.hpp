#pragma once
// A plain HTTP/1.1 listener on loopback that records every request head and answers as a test
// says: the stand-in for a backend (or an HTTP proxy) whose only job is to show what reached it.

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "tests/support/background_io.hpp"

namespace idem::kit {

/// What a request to the listener gets, from its head: a complete raw HTTP response, or nullopt
/// for nothing at all (the connection is held open until the client gives up). Called on the
/// listener's thread.
using answer_policy = std::function<std::optional<std::string>(const std::string& head)>;

/// A raw HTTP/1.1 response with a JSON content type and `body`.
[[nodiscard]] std::string http_answer(int status, const std::string& body);

/// Whether a request dies with its connection: called with the request's number on its
/// connection (1 for the first) and its head, after the head is recorded; true closes the
/// connection at once, the request unanswered (a server or middlebox that drops a kept-alive
/// connection under a request). Called on the listener's thread.
using close_policy = std::function<bool(std::size_t on_connection, const std::string& head)>;

struct recording_listener_options {
  /// Answer a CONNECT with 200 and tunnel the connection to 127.0.0.1:<the port it names>,
  /// whatever the host: an HTTP proxy in front of loopback servers.
  bool tunnel_connect = false;
  /// Empty: no request dies with its connection.
  close_policy close_unanswered{};
};

/// Listens on 127.0.0.1:0, run by a thread of its own from construction to destruction; keeps
/// each connection alive. Thread-safety: every member may be called from any thread while it
/// runs.
class recording_listener {
 public:
  explicit recording_listener(answer_policy policy, recording_listener_options options = {});
  recording_listener(const recording_listener&) = delete;
  recording_listener& operator=(const recording_listener&) = delete;

  [[nodiscard]] std::uint16_t port() const noexcept { return port_; }
  /// "http://127.0.0.1:<port>", without a trailing slash.
  [[nodiscard]] std::string url() const;
  /// Every request head read so far, in arrival order, CONNECTs included. A head is recorded
  /// before it is answered.
  [[nodiscard]] std::vector<std::string> heads() const;
  /// The heads whose request line starts with `prefix` (e.g. "POST ", "GET /lookup").
  [[nodiscard]] std::vector<std::string> heads_starting(const std::string& prefix) const;
  /// Waits until `n` requests arrived; false if `limit` passed first (a hang, not a timing).
  [[nodiscard]] bool wait_for_requests(
      std::size_t n, std::chrono::milliseconds limit = std::chrono::seconds(30)) const;

  struct state;  // shared with the connections in flight (recording_listener.cpp)

 private:
  std::shared_ptr<state> state_;
  background_io bg_;  // after state_: stopped (and its coroutines gone) before state_ goes
  std::uint16_t port_ = 0;
};

}  // namespace idem::kit
