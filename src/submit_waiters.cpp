// submit_operation's callers: completing them (posted, never inline), their cancellation, and
// callers that join a flight already under way (single flight).
#include <algorithm>
#include <boost/asio/append.hpp>
#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/post.hpp>

#include "submit_operation.hpp"

namespace idem::detail {
namespace asio = boost::asio;
using std::chrono::milliseconds;

void deliver(outcome_handler h, outcome o, const asio::any_io_executor& fallback) {
  auto slot = asio::get_associated_cancellation_slot(h);
  if (slot.is_connected()) slot.clear();
  // post(ex, handler) runs the handler on its own associated executor (fallback: ex), later.
  asio::post(fallback, asio::append(std::move(h), std::move(o)));
}

std::shared_ptr<waiter_cancellation> watch_cancellation(
    const outcome_handler& h, const asio::strand<asio::any_io_executor>& strand) {
  auto state = std::make_shared<waiter_cancellation>();
  auto slot = asio::get_associated_cancellation_slot(h);
  if (slot.is_connected()) {
    // The cancel may be emitted from another thread: hop onto the strand before touching state.
    slot.assign([state, strand](asio::cancellation_type type) {
      state->requested |= static_cast<unsigned>(type);
      asio::post(strand, [state, type] {
        if (state->on_cancel) state->on_cancel(type);
      });
    });
  }
  return state;
}

void submit_operation::join(outcome_handler h,
                            const std::shared_ptr<waiter_cancellation>& cancellation) {
  const auto id = next_waiter_id_++;
  // Keeps the waiter's executor from running out of work until its completion is posted.
  auto work = asio::prefer(asio::get_associated_executor(h, core_->ex),
                           asio::execution::outstanding_work.tracked);
  waiters_.push_back(waiter{id, std::move(h), std::move(work)});
  if (!cancellation) return;
  std::weak_ptr<submit_operation> weak = weak_from_this();
  cancellation->on_cancel = [weak, id](asio::cancellation_type type) {
    if (auto self = weak.lock()) self->on_waiter_cancelled(id, type);
  };
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
                                   .last_transport_error = last_transport_error_}),
            core_->ex);
    return;
  }
  cancel(type);
}

}  // namespace idem::detail
