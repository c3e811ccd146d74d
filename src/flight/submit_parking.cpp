// submit_operation while the app says the device is offline: no attempt, poll or lookup starts;
// the flight waits in core::parked for set_network(online), or for its deadline unless the
// policy pauses that; and what client::on_foreground dropped in flight is sent again.
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>

#include "flight/submit_operation.hpp"

namespace idem::detail {
namespace asio = boost::asio;
using std::chrono::milliseconds;

bool submit_operation::park_if_offline(void (submit_operation::*next)()) {
  if (!core_->offline) return false;
  parked_ = true;
  rare().parked_next = next;
  const auto generation = ++rare().park_generation;
  core_->parked.push_back(shared_from_this());
  if (core_->opts.lifecycle.pause_deadline_while_offline) return true;  // no timer: no wake-ups
  // The deadline runs on: once it has passed, nothing more can be tried, offline or not.
  const auto left = deadline_->left(deadline_now());
  core_->sched->async_wait(
      left, asio::bind_cancellation_slot(
                signal_.slot(), asio::bind_executor(core_->strand, [self = shared_from_this(),
                                                                    generation](std::error_code) {
                  if (!self->parked_ || self->rare_->park_generation != generation)
                    return;  // resumed
                  self->unpark();
                  self->finish_stopped(errc::offline);
                })));
  return true;
}

void submit_operation::unpark() {
  parked_ = false;
  ++rare().park_generation;
  std::erase_if(core_->parked, [this](const auto& op) { return op.get() == this; });
}

void submit_operation::resume(milliseconds delay) {
  if (!parked_) return;
  const auto next = rare().parked_next;
  unpark();
  signal_.emit(asio::cancellation_type::terminal);  // the deadline's timer, if any: now stale
  if (delay <= milliseconds{0}) {
    asio::post(core_->strand, [self = shared_from_this(), next] {
      if (self->stopping()) return self->finish_stopped();
      ((*self).*next)();
    });
    return;
  }
  wait(trace::wait_reason::resume_spread, delay, [this, next] { (this->*next)(); });
}

void submit_operation::redrive() {
  // The connection may have died with the request on it, or not: the same key makes sending
  // again safe either way. Spread, so that a return to the foreground is no burst.
  wait(trace::wait_reason::resume_spread, core_->resume_delay(), [this] { next_attempt(); });
}

std::chrono::steady_clock::time_point submit_operation::deadline_now() const {
  const auto now = sched_now();
  if (!core_->opts.lifecycle.pause_deadline_while_offline) return now;
  return now - (core_->offline_total(now) - offline_at_start_);
}

}  // namespace idem::detail
