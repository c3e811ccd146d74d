#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/associated_executor.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/steady_timer.hpp>
#include <memory>

#include "idem/scheduler.hpp"

namespace idem {

void asio_scheduler::wait_impl(clock::duration d,
                               boost::asio::any_completion_handler<signature> handler) {
  namespace asio = boost::asio;
  auto timer = std::make_shared<asio::steady_timer>(ex_, d);
  // Cancelling the caller's operation cancels the timer. The caller's slot outlives the wait (a
  // flight reuses one signal for all its operations), so it holds only a weak reference: a
  // cancel emitted after the wait completed finds the timer gone and does nothing. (Handing
  // the slot to the timer itself left Asio's handler in it, pointing into the freed timer.)
  auto slot = asio::get_associated_cancellation_slot(handler);
  if (slot.is_connected()) {
    slot.assign([weak = std::weak_ptr<asio::steady_timer>(timer)](asio::cancellation_type) {
      if (auto t = weak.lock()) t->cancel();
    });
  }
  // Completion runs where the caller wants it.
  auto ex = asio::get_associated_executor(handler, ex_);
  timer->async_wait(asio::bind_executor(
      ex, [timer, h = std::move(handler)](const boost::system::error_code& ec) mutable {
        // Asio says operation_aborted; our interface promises std::errc::operation_canceled.
        std::move(h)(ec ? std::make_error_code(std::errc::operation_canceled) : std::error_code{});
      }));
}

}  // namespace idem
