// What a client shares with its flights (flight/client_core.hpp): the bookkeeping its flights call
// as they end, park and resume. The core is made by the client (client/client.cpp), which owns the
// choice of transport, scheduler and store; everything here runs on the strand.
#include "flight/client_core.hpp"

#include <boost/asio/append.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>
#include <random>
#include <utility>

namespace idem {
namespace asio = boost::asio;

scheduler::clock::duration client::core::offline_total(scheduler::clock::time_point now) const {
  return offline ? offline_before + (now - offline_since) : offline_before;
}

std::chrono::milliseconds client::core::resume_delay() {
  const auto spread = opts.lifecycle.resume_spread.count();
  if (spread <= 0) return std::chrono::milliseconds{0};
  return std::chrono::milliseconds{std::uniform_int_distribution<long long>(0, spread - 1)(rng)};
}

void client::core::flight_ended(bool stopped_at_start) {
  ++flights_ended;
  if (stopped_at_start && !shutdown_flush_began) ++stopped_before_shutdown_flush;
  complete_flushes();
}

void client::core::complete_flushes() {
  if (flights.size() != 0 || flushes.empty()) return;
  auto done = std::move(flushes);
  flushes.clear();
  for (auto& f : done) {
    f->done = true;
    f->due.emit(asio::cancellation_type::terminal);  // its timer, if any: no wake-up left
    const std::uint64_t ended = flights_ended - f->ended_at_start;
    store->async_flush(
        ex, asio::bind_executor(strand, [f, ended, fallback = ex](std::error_code ec) mutable {
          flush_report r;
          r.finished = ended > f->stopped ? static_cast<std::size_t>(ended - f->stopped) : 0;
          r.stopped = f->stopped + f->stopped_before;
          r.store_error = ec;
          // Posted to the handler's own executor (fallback: the client's), never inline.
          asio::post(fallback, asio::append(std::move(f->handler), r));
        }));
  }
}

}  // namespace idem
