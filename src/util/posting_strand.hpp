#pragma once
// A strand as post() converts it before every post (never blocking, a fork of the caller's
// work), converted once (private to the idem library). post(strand, f) made those conversions
// on every call: each a copy of the strand and of its type-erased executor, one of them an
// allocation. execute() on the result posts as post() would.

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/execution.hpp>
#include <boost/asio/strand.hpp>
#include <memory>
#include <utility>

namespace idem::detail {

using io_strand = boost::asio::strand<boost::asio::any_io_executor>;

[[nodiscard]] inline io_strand posting_strand(const io_strand& s) {
  return boost::asio::prefer(boost::asio::require(s, boost::asio::execution::blocking.never),
                             boost::asio::execution::relationship.fork);
}

/// Queues `f` on `s` and returns; `f` never runs inside this call. strand::execute() would
/// ask the strand's type-erased executor whether it may block, and Asio 1.81's any_executor
/// answers that question (a non-scalar property) with a heap-allocated result: one allocation
/// per post, on every submission and every transfer's result. strand::post() does not ask.
template <class Function>
void post_on(const io_strand& s, Function&& f) {
#if defined(BOOST_ASIO_NO_TS_EXECUTORS)
  // A build without the Networking TS interface has no strand::post(): `s` is the posting
  // strand (never blocking), so execute() queues as well, with the allocation.
  s.execute(std::forward<Function>(f));
#else
  s.post(std::forward<Function>(f), std::allocator<void>{});
#endif
}

}  // namespace idem::detail
