// submit_operation's callers: completing them (posted, never inline), their cancellation, and
// callers that join a flight already under way (single flight).
#include <algorithm>
#include <boost/asio/append.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>

#include "flight/submit_operation.hpp"

namespace idem::detail {
namespace asio = boost::asio;
using std::chrono::milliseconds;

namespace {

// Calls `f` with `ex`, or with the io_context executor it wraps (the usual case) as its own
// type. A caller's handler is type-erased: asking for its executor, with `ex` as the default,
// wraps that default in an any_completion_executor, and an any_io_executor does not fit in its
// small buffer (a heap copy per query), where an io_context executor does.
template <class F>
decltype(auto) with_executor(const asio::any_io_executor& ex, F&& f) {
  if (const auto* io = ex.target<asio::io_context::executor_type>()) return f(*io);
  return f(ex);
}

}  // namespace

void deliver(outcome_handler h, outcome o, const asio::any_io_executor& fallback) {
  auto slot = asio::get_associated_cancellation_slot(h);
  if (slot.is_connected()) slot.clear();
  // post(ex, handler) runs the handler on its own associated executor (fallback: ex), later.
  with_executor(fallback,
                [&](const auto& ex) { asio::post(ex, asio::append(std::move(h), std::move(o))); });
}

std::shared_ptr<waiter_cancellation> watch_cancellation(const outcome_handler& h,
                                                        const std::shared_ptr<client::core>& core) {
  auto slot = asio::get_associated_cancellation_slot(h);
  if (!slot.is_connected()) return nullptr;
  auto state = std::make_shared<waiter_cancellation>();
  // The cancel may be emitted from another thread: hop onto the strand before touching state.
  // The core is held weakly: a caller's slot must not keep a destroyed client's core alive
  // (once the core is gone, so are its flights, and every caller has had its outcome). The
  // reference taken here goes with the posted handler, so that if it is the core's last, the
  // core ends on its strand as it would otherwise, not on the emitting thread.
  slot.assign([state, weak_core = std::weak_ptr<client::core>(core)](asio::cancellation_type type) {
    state->requested |= static_cast<unsigned>(type);
    if (auto c = weak_core.lock()) {
      const auto& strand = c->strand;  // c's core lives in the handler until it has run
      asio::post(strand, [state, type, c = std::move(c)] {
        if (auto flight = state->flight.lock()) flight->on_waiter_cancelled(state->waiter, type);
      });
    }
  });
  return state;
}

void submit_operation::join(outcome_handler h,
                            const std::shared_ptr<waiter_cancellation>& cancellation) {
  const auto id = next_waiter_id_++;
  // Keeps the waiter's executor from running out of work until its completion is posted.
  auto work = with_executor(core_->ex, [&](const auto& ex) {
    return asio::prefer(asio::get_associated_executor(h, ex),
                        asio::execution::outstanding_work.tracked);
  });
  waiters_.push_back(waiter{id, std::move(h), std::move(work)});
  if (!cancellation) return;
  cancellation->flight = weak_from_this();
  cancellation->waiter = id;
  if (const unsigned early = cancellation->requested.load(); early != 0) {
    on_waiter_cancelled(id, static_cast<asio::cancellation_type>(early));
  }
}

void submit_operation::on_waiter_cancelled(std::uint64_t id, asio::cancellation_type type) {
  auto it =
      std::find_if(waiters_.begin(), waiters_.end(), [id](const waiter& w) { return w.id == id; });
  if (it == waiters_.end() || finished_) return;
  if (waiters_.size() > 1) {
    // Others still wait for this flight: this caller just leaves. The flight may still send,
    // so what it leaves with is unresolved, never not_sent.
    waiter w = std::move(*it);
    waiters_.erase(it);
    deliver(std::move(w.handler),
            outcome(outcome_fields{.kind = outcome_kind::unresolved,
                                   .attempts = attempts_,
                                   .key = intent_.key().str(),
                                   .elapsed = elapsed(),
                                   .last_transport_error = last_transport_error_,
                                   .reason = errc::cancelled}),
            core_->ex);
    return;
  }
  cancel(type);
}

}  // namespace idem::detail
