#pragma once
// An idem::observer that turns idem's events into OpenTelemetry-style spans, without any tracing
// library: an app wires `export_span` to its own tracer (opentelemetry-cpp, Datadog, Sentry...)
// or, as examples/example_tracing.cpp does, prints them. The names are documented in
// docs/SDK.md ("Tracing") and stay stable:
//
//   idem.intent   one per submission (root)     idem.key, idem.business_id, http.request.method,
//                                               url.path; at its end idem.outcome, idem.reason,
//                                               idem.attempts, http.response.status_code
//   idem.attempt  one per write (child)         idem.attempt, http.request.method, url.path;
//                                               http.response.status_code, idem.attempt.class,
//                                               idem.replayed, error.type
//   idem.lookup   one per GET by business id    idem.lookup.request, idem.lookup.cause;
//                                               idem.lookup.verdict, idem.lookup.records,
//                                               http.response.status_code, error.type
//   idem.poll     one per GET of a 202's status http.response.status_code, error.type
//   idem.wait     an event on idem.intent       idem.wait.reason, idem.wait.delay_ms
//
// Thread-safe (a mutex): one tracer may observe several clients.
#include <chrono>
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "idem/observer.hpp"

namespace idem_example {

struct span_event {
  std::string name;
  std::chrono::steady_clock::time_point at;
  std::map<std::string, std::string> attributes;
};

struct span {
  std::string name;
  std::uint64_t id = 0;
  std::uint64_t parent_id = 0;  ///< 0: a root span
  std::chrono::steady_clock::time_point start;
  std::chrono::steady_clock::time_point end;
  std::map<std::string, std::string> attributes;
  std::vector<span_event> events;
  bool error = false;  ///< OpenTelemetry's status ERROR: the intent did not succeed
};

class span_tracer final : public idem::observer {
 public:
  using clock = std::chrono::steady_clock;
  /// `export_span` is called with each span as it ends (children before their parent).
  explicit span_tracer(std::function<void(const span&)> export_span,
                       std::function<clock::time_point()> now = clock::now)
      : export_(std::move(export_span)), now_(std::move(now)) {}

  void on_intent_started(const idem::trace::intent_started& e) override {
    std::lock_guard lock(mutex_);
    auto& f = flights_[std::string(e.ids.key)];
    f.root = open("idem.intent", 0);
    f.root.attributes = {{"idem.key", std::string(e.ids.key)},
                         {"idem.business_id", std::string(e.ids.business_id)},
                         {"http.request.method", std::string(e.method)},
                         {"url.path", std::string(e.path)}};
  }
  void on_attempt_started(const idem::trace::attempt_started& e) override {
    child(e.ids, "idem.attempt",
          {{"idem.attempt", std::to_string(e.attempt)},
           {"http.request.method", std::string(e.method)},
           {"url.path", std::string(e.path)}});
  }
  void on_attempt_finished(const idem::trace::attempt_finished& e) override {
    end_child(e.ids, e.status, e.transport_error,
              {{"idem.attempt.class", std::string(idem::to_string(e.cls))},
               {"idem.replayed", e.replayed ? "true" : "false"}});
  }
  void on_wait(const idem::trace::wait& e) override {
    std::lock_guard lock(mutex_);
    auto it = flights_.find(std::string(e.ids.key));
    if (it == flights_.end()) return;
    it->second.root.events.push_back(
        {"idem.wait",
         now_(),
         {{"idem.wait.reason", std::string(idem::trace::to_string(e.reason))},
          {"idem.wait.delay_ms", std::to_string(e.delay.count())}}});
  }
  void on_poll_started(const idem::trace::poll_started& e) override {
    child(e.ids, "idem.poll", {});
  }
  void on_poll_finished(const idem::trace::poll_finished& e) override {
    end_child(e.ids, e.status, e.transport_error, {});
  }
  void on_lookup_started(const idem::trace::lookup_started& e) override {
    child(e.ids, "idem.lookup",
          {{"idem.lookup.request", std::to_string(e.request)},
           {"idem.lookup.cause", std::string(idem::trace::to_string(e.cause))}});
  }
  void on_lookup_finished(const idem::trace::lookup_finished& e) override {
    end_child(e.ids, e.status, e.transport_error,
              {{"idem.lookup.verdict", std::string(idem::to_string(e.verdict))},
               {"idem.lookup.records", std::to_string(e.records)}});
  }
  void on_intent_finished(const idem::trace::intent_finished& e) override {
    std::lock_guard lock(mutex_);
    auto it = flights_.find(std::string(e.ids.key));
    if (it == flights_.end()) return;
    span s = std::move(it->second.root);
    flights_.erase(it);
    s.end = now_();
    s.attributes["idem.outcome"] = std::string(idem::to_string(e.kind));
    s.attributes["idem.reason"] = e.reason ? e.reason.message() : "";
    s.attributes["idem.attempts"] = std::to_string(e.attempts);
    if (e.status != 0) s.attributes["http.response.status_code"] = std::to_string(e.status);
    s.error = e.kind != idem::outcome_kind::succeeded;
    export_(s);
  }

 private:
  struct flight {
    span root;
    span current;  // the attempt, lookup or poll in progress (one at a time per flight)
  };

  span open(std::string name, std::uint64_t parent) {
    span s;
    s.name = std::move(name);
    s.id = ++last_id_;
    s.parent_id = parent;
    s.start = now_();
    return s;
  }
  void child(const idem::trace::intent_ids& ids, std::string name,
             std::map<std::string, std::string> attributes) {
    std::lock_guard lock(mutex_);
    auto it = flights_.find(std::string(ids.key));
    if (it == flights_.end()) return;
    auto& f = it->second;
    f.current = open(std::move(name), f.root.id);
    f.current.attributes = std::move(attributes);
    f.current.attributes["idem.key"] = std::string(ids.key);
  }
  void end_child(const idem::trace::intent_ids& ids, int status, std::error_code transport_error,
                 std::map<std::string, std::string> attributes) {
    std::lock_guard lock(mutex_);
    auto it = flights_.find(std::string(ids.key));
    if (it == flights_.end() || it->second.current.id == 0) return;
    span s = std::exchange(it->second.current, span{});
    s.end = now_();
    for (auto& [k, v] : attributes)
      s.attributes[k] = std::move(v);
    if (status != 0) s.attributes["http.response.status_code"] = std::to_string(status);
    if (transport_error) {
      s.attributes["error.type"] = transport_error.message();
      s.error = true;
    }
    export_(s);
  }

  std::function<void(const span&)> export_;
  std::function<clock::time_point()> now_;
  std::mutex mutex_;
  std::map<std::string, flight, std::less<>> flights_;  // by key
  std::uint64_t last_id_ = 0;
};

}  // namespace idem_example
