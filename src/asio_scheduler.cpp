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
  // The timer gets the caller's cancellation slot and executor directly, so cancelling the
  // caller's operation cancels the timer, and completion runs where the caller wants it.
  auto slot = asio::get_associated_cancellation_slot(handler);
  auto ex = asio::get_associated_executor(handler, ex_);
  timer->async_wait(asio::bind_cancellation_slot(
      slot, asio::bind_executor(ex, [timer, h = std::move(handler)](
                                        const boost::system::error_code& ec) mutable {
        // Asio says operation_aborted; our interface promises std::errc::operation_canceled.
        std::move(h)(ec ? std::make_error_code(std::errc::operation_canceled) : std::error_code{});
      })));
}

}  // namespace idem
