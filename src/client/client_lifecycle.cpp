// What the app tells the client about the device: the network comes and goes, the app returns
// from the background (idem/lifecycle.hpp). Flushing before a suspend is in client_flush.cpp.
#include <boost/asio/post.hpp>
#include <random>

#include "flight/client_core.hpp"
#include "flight/submit_operation.hpp"

namespace idem {

std::string_view to_string(network_status s) noexcept {
  return s == network_status::online ? "online" : "offline";
}

scheduler::clock::duration client::core::offline_total(scheduler::clock::time_point now) const {
  return offline ? offline_before + (now - offline_since) : offline_before;
}

std::chrono::milliseconds client::core::resume_delay() {
  const auto spread = opts.lifecycle.resume_spread.count();
  if (spread <= 0) return std::chrono::milliseconds{0};
  return std::chrono::milliseconds{std::uniform_int_distribution<long long>(0, spread - 1)(rng)};
}

void client::set_network(network_status s) {
  core_->reported_network.store(s, std::memory_order_relaxed);
  auto c = core_;
  boost::asio::post(c->strand, [c, s] {
    const bool offline = s == network_status::offline;
    if (offline == c->offline) return;
    const auto now = c->sched->now();
    if (offline) {
      c->offline = true;
      c->offline_since = now;
      return;
    }
    c->offline_before += now - c->offline_since;
    c->offline = false;
    auto waiting = std::move(c->parked);
    c->parked.clear();
    for (auto& op : waiting)
      op->resume(c->resume_delay());
  });
}

network_status client::network() const noexcept {
  return core_->reported_network.load(std::memory_order_relaxed);
}

void client::on_foreground() {
  auto c = core_;
  // The transport runs on the strand: reset it there. Writes it drops come back to their
  // flights as `connections_reset`, which sends them again (submit_parking.cpp).
  boost::asio::post(c->strand, [c] { c->net->reset_connections(); });
}

}  // namespace idem
