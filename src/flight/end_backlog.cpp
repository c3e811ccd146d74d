#include "flight/end_backlog.hpp"

namespace idem::detail {
namespace {
// Below this an end counts as on time: a timer's firing and the hop back take about as much.
constexpr std::chrono::milliseconds on_time{1};
}  // namespace

void end_backlog::on_timed_out(clock::time_point now, clock::duration lateness) {
  if (lateness < on_time) {
    last_late_end_.reset();  // the thread caught up: the next late end starts a new backlog
    return;
  }
  // The time between two late ends measures one end's cost only if the thread was behind all
  // along: this transfer was already due when the last late one was handled. Otherwise the
  // thread may have been idle in between.
  if (last_late_end_ && now - lateness <= *last_late_end_) {
    const clock::duration spacing = now - *last_late_end_;
    // A moving average over about eight ends: one slow end (a page fault, a preemption) moves
    // it by an eighth.
    per_end_ = per_end_ == clock::duration{0} ? spacing : (per_end_ * 7 + spacing) / 8;
  }
  last_late_end_ = now;
}

}  // namespace idem::detail
