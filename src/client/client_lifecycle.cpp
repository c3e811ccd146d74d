// What the app tells the client about the device: the network comes and goes, the app returns
// from the background (idem/lifecycle.hpp). Flushing before a suspend is in client_flush.cpp.
#include <boost/asio/post.hpp>

#include "flight/client_core.hpp"
#include "flight/submit_operation.hpp"

namespace idem {

std::string_view to_string(network_status s) noexcept {
  return s == network_status::online ? "online" : "offline";
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
