// client::async_flush and async_shutdown: before the app is suspended (or the client goes),
// let what can finish finish, stop the rest (open in the store, with its key), and make every
// event durable.
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <utility>

#include "flight/client_core.hpp"
#include "flight/submit_operation.hpp"

namespace idem {
namespace asio = boost::asio;

namespace {

// Stops every flight (terminal: a transfer in flight is aborted); each completes not_sent or
// unresolved, and finish() calls flight_ended().
void stop_flights(const std::shared_ptr<client::core>& c, detail::pending_flush& f) {
  auto flights = c->flights.all();
  f.stopped += flights.size();
  for (auto& op : flights)
    op->cancel(asio::cancellation_type::terminal);
}

void stop_parked(const std::shared_ptr<client::core>& c, detail::pending_flush& f) {
  auto parked = c->parked;  // each cancel unparks its flight
  f.stopped += parked.size();
  for (auto& op : parked)
    op->cancel(asio::cancellation_type::terminal);
}

}  // namespace

void client::flush_impl(std::chrono::milliseconds within, bool shutdown,
                        asio::any_completion_handler<void(flush_report)> handler) {
  auto c = core_;
  if (shutdown) c->shutting_down.store(true, std::memory_order_release);
  asio::post(c->strand, [c, within, shutdown, h = std::move(handler)]() mutable {
    auto f = std::make_shared<detail::pending_flush>(std::move(h));
    f->ended_at_start = c->flights_ended;
    if (shutdown && !c->shutdown_flush_began) {
      // Submissions queued ahead of this call, stopped when they reached the strand: already
      // ended (not_sent), never seen as flights by this flush, but stopped by it all the same.
      c->shutdown_flush_began = true;
      f->stopped_before = std::exchange(c->stopped_before_shutdown_flush, 0);
    }
    c->flushes.push_back(f);
    if (c->flights.size() == 0) return c->complete_flushes();  // nothing to wait for
    if (within <= std::chrono::milliseconds{0}) return stop_flights(c, *f);
    // Waiting for the network cannot finish within the flush: stopped now.
    if (c->offline) stop_parked(c, *f);
    c->sched->async_wait(within,
                         asio::bind_cancellation_slot(
                             f->due.slot(), asio::bind_executor(c->strand, [c, f](std::error_code) {
                               if (!f->done) stop_flights(c, *f);
                             })));
  });
}

}  // namespace idem
