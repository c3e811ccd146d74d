#include "mock_server/server.hpp"

#include <boost/asio/steady_timer.hpp>
#include <iostream>

#include "mock_server/app.hpp"
#include "mock_server/http/http_server.hpp"
#include "mock_server/idempotency/completer.hpp"
#include "mock_server/state/server_state.hpp"
#include "mock_server/storage/sqlite.hpp"

namespace idem::mock {

namespace asio = boost::asio;

namespace {

// A background round that meets the database locked by another process tries again on its next
// round; saying so every round would fill the log for as long as the lock is held.
bool locked_by_another_process(const std::exception& e) {
  const auto* db = dynamic_cast<const sqlite_error*>(&e);
  return db != nullptr && db->busy();
}

}  // namespace

server::server(asio::io_context& io, server_options options)
    : state_(std::make_unique<server_state>(std::move(options))) {
  auto address = asio::ip::make_address(state_->options.host);
  // A full server still answers its health checks, its metrics and its operator.
  auto http_options = state_->options.http;
  if (http_options.control_paths.empty()) {
    http_options.control_paths = {"/healthz", "/metrics", "/_mock/"};
  }
  http_ = std::make_unique<http_server>(
      io.get_executor(), asio::ip::tcp::endpoint{address, state_->options.port},
      [state = state_.get()](request req) { return handle_request(*state, std::move(req)); },
      std::move(http_options));
  reaper_ = std::make_unique<asio::steady_timer>(io);
  completer_ = std::make_unique<asio::steady_timer>(io);
  counters_ = std::make_unique<asio::steady_timer>(io);
}

// A server destroyed without a graceful shutdown (an exception in main, a test fixture) still
// keeps its traffic counts.
server::~server() {
  persist_counters();
}

asio::ip::tcp::endpoint server::local_endpoint() const {
  return http_->local_endpoint();
}

void server::start() {
  http_->start();
  schedule_reaper();
  schedule_completer();
  schedule_counters();
}

void server::schedule_reaper() {
  reaper_->expires_after(state_->options.reaper_interval);
  reaper_->async_wait([this](boost::system::error_code ec) {
    if (ec || stopping_) return;
    try {
      state_->reap();
    } catch (const std::exception& e) {
      if (!locked_by_another_process(e)) {
        std::cerr << "idem-mock-server: reaper failed: " << e.what() << '\n';
      }
    }
    schedule_reaper();
  });
}

void server::schedule_completer() {
  completer_->expires_after(state_->options.completer_interval);
  completer_->async_wait([this](boost::system::error_code ec) {
    if (ec || stopping_) return;
    complete_abandoned(*state_);  // logs and skips what it cannot settle
    schedule_completer();
  });
}

void server::schedule_counters() {
  counters_->expires_after(state_->options.counters_interval);
  counters_->async_wait([this](boost::system::error_code ec) {
    if (ec || stopping_) return;
    persist_counters();
    schedule_counters();
  });
}

void server::persist_counters() noexcept {
  try {
    state_->stats.persist();
  } catch (const std::exception& e) {  // kept in memory: the next round tries again
    if (!locked_by_another_process(e)) {
      std::cerr << "idem-mock-server: could not write the counters: " << e.what() << '\n';
    }
  }
}

void server::shutdown(std::function<void()> on_stopped) {
  stopping_ = true;
  reaper_->cancel();
  completer_->cancel();
  counters_->cancel();
  // Written once the last response is out: the requests that finish during the grace count too.
  http_->shutdown([this, on_stopped = std::move(on_stopped)] {
    persist_counters();
    if (on_stopped) on_stopped();
  });
}

}  // namespace idem::mock
