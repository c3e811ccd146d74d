#pragma once
/// @file
/// A scripted transport for tests: records every request and answers each from a responder
/// function the test sets. Header-only.

#include <boost/asio/append.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/post.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "idem/testing/fake_scheduler.hpp"
#include "idem/transport.hpp"
#include "idem/transport_error.hpp"

namespace idem::kit {

/// One scripted answer.
struct fake_reply {
  transport_result result;
  /// Virtual time the transfer takes (needs a fake_scheduler); at or past the request's timeout
  /// the attempt ends as a timeout after sending (`unknown`) when the timeout runs out.
  std::chrono::milliseconds takes{0};
  /// Never answers until cancelled: a transfer in progress.
  bool hang = false;
  /// With `hang`: the request already left (terminal cancellation ends it as `unknown`; partial
  /// and total cancellation are ignored, as curl_transport does), or it is still connecting
  /// (any cancellation ends it as `not_sent`).
  bool sent = true;
};

/// An HTTP response.
inline fake_reply reply(int status, std::string body = {}, header_list headers = {}) {
  fake_reply r;
  r.result.response.status = status;
  r.result.response.body = std::move(body);
  r.result.response.headers = std::move(headers);
  return r;
}

/// An RFC 9457 problem response named by its problem name.
inline fake_reply problem(int status, const std::string& name, header_list headers = {}) {
  return reply(status,
               R"({"type":"https://idem.example/problems/)" + name + R"(","status":)" +
                   std::to_string(status) + "}",
               std::move(headers));
}

/// A failure without a response: `not_sent` (connection refused) or `unknown` (reset).
inline fake_reply failed(transport_failure f) {
  fake_reply r;
  r.result.failure = f;
  r.result.ec =
      std::make_error_code(f == transport_failure::not_sent ? std::errc::connection_refused
                                                            : std::errc::connection_reset);
  return r;
}

/// A transfer that never ends on its own; its request has left.
inline fake_reply hang() {
  fake_reply r;
  r.hang = true;
  return r;
}

/// A transfer that never ends on its own and has not sent anything yet (still connecting).
inline fake_reply hang_connecting() {
  fake_reply r = hang();
  r.sent = false;
  return r;
}

/// Thread-safety: none; tests run one io_context on one thread.
class fake_transport final : public transport {
 public:
  using responder = std::function<fake_reply(const http_request&)>;

  explicit fake_transport(boost::asio::any_io_executor ex,
                          std::shared_ptr<fake_scheduler> clock = nullptr)
      : ex_(std::move(ex)), clock_(std::move(clock)) {}

  /// How every request is answered (default: 503 for everything).
  void respond(responder r) { responder_ = std::move(r); }
  /// Every request, in the order sent.
  [[nodiscard]] const std::vector<http_request>& requests() const { return requests_; }
  /// The requests with this method.
  [[nodiscard]] std::vector<http_request> requests(const std::string& method) const {
    std::vector<http_request> out;
    for (const auto& r : requests_) {
      if (r.method == method) out.push_back(r);
    }
    return out;
  }
  /// Transfers that hang now.
  [[nodiscard]] std::size_t hanging() const { return hanging_.size(); }
  /// Ends every hanging transfer with `r` (the answer arrives after all).
  void finish_hanging(const fake_reply& r) {
    auto handlers = std::move(hanging_);
    hanging_.clear();
    for (auto& [id, h] : handlers) {
      auto slot = boost::asio::get_associated_cancellation_slot(h.handler);
      if (slot.is_connected()) slot.clear();
      boost::asio::post(ex_, boost::asio::append(std::move(h.handler), r.result));
    }
  }
  /// Ends every hanging transfer with `transport_errc::connections_reset`, posted: `not_sent`
  /// for a `hang_connecting()` one, `unknown` for a `hang()` one. Counted by resets(), hanging
  /// transfers or not.
  void reset_connections() override {
    ++resets_;
    auto transfers = std::move(hanging_);
    hanging_.clear();
    for (auto& [id, h] : transfers) {
      auto slot = boost::asio::get_associated_cancellation_slot(h.handler);
      if (slot.is_connected()) slot.clear();
      transport_result result;
      result.ec = make_error_code(transport_errc::connections_reset);
      result.failure = h.sent ? transport_failure::unknown : transport_failure::not_sent;
      boost::asio::post(ex_, boost::asio::append(std::move(h.handler), std::move(result)));
    }
  }
  /// Calls of reset_connections() so far.
  [[nodiscard]] std::size_t resets() const { return resets_; }

 protected:
  void send_impl(http_request req,
                 boost::asio::any_completion_handler<signature> handler) override {
    requests_.push_back(req);
    fake_reply r = responder_ ? responder_(req) : reply(503);
    if (r.hang) {
      const auto id = next_id_++;
      auto slot = boost::asio::get_associated_cancellation_slot(handler);
      if (slot.is_connected()) {
        slot.assign([this, id, sent = r.sent](boost::asio::cancellation_type type) {
          auto it = hanging_.find(id);
          if (it == hanging_.end()) return;
          // Partial and total cancellation promise no side effects: once sent, ignored.
          const bool terminal = (type & boost::asio::cancellation_type::terminal) !=
                                boost::asio::cancellation_type::none;
          if (sent && !terminal) return;
          auto h = std::move(it->second.handler);
          hanging_.erase(it);
          // A request that had left may still have been executed.
          transport_result result;
          result.ec = std::make_error_code(std::errc::operation_canceled);
          result.failure = sent ? transport_failure::unknown : transport_failure::not_sent;
          boost::asio::post(ex_, boost::asio::append(std::move(h), std::move(result)));
        });
      }
      hanging_.emplace(id, hanging_transfer{std::move(handler), r.sent});
      return;
    }
    if (clock_ && r.takes.count() > 0) {
      if (r.takes >= req.timeout) {
        clock_->pass(req.timeout);
        r.result = transport_result{};
        r.result.ec = std::make_error_code(std::errc::timed_out);
        r.result.failure = transport_failure::unknown;
      } else {
        clock_->pass(r.takes);
      }
    }
    auto slot = boost::asio::get_associated_cancellation_slot(handler);
    if (slot.is_connected()) slot.clear();
    boost::asio::post(ex_, boost::asio::append(std::move(handler), std::move(r.result)));
  }

 private:
  struct hanging_transfer {
    boost::asio::any_completion_handler<signature> handler;
    bool sent;  // its request left (hang()), or it is still connecting (hang_connecting())
  };

  boost::asio::any_io_executor ex_;
  std::shared_ptr<fake_scheduler> clock_;
  responder responder_;
  std::vector<http_request> requests_;
  std::map<std::uint64_t, hanging_transfer> hanging_;
  std::uint64_t next_id_ = 0;
  std::size_t resets_ = 0;
};

}  // namespace idem::kit
