#pragma once
// The client's strand, by reference: the executor the client's transfer handlers name (private
// to the idem library).
//
// A transport holds its handler type-erased, and asking it for the handler's executor makes an
// any_completion_executor of it on every result. The strand does not fit in one: it went to
// the heap, and making it asked the strand's own type-erased executor for its blocking
// property, which Asio answers with one more allocation. Two pointers fit, and the answer here
// needs nothing type-erased. The strands belong to the client's core, which every handler
// naming this executor keeps alive (the operation it completes holds the core).

#include <boost/asio/execution.hpp>
#include <boost/asio/execution_context.hpp>
#include <boost/asio/query.hpp>
#include <utility>

#include "util/posting_strand.hpp"

namespace idem::detail {

/// An Asio executor (execute, require blocking.never, equality) that runs what it is given on
/// `strand`, or on `posting` (the same strand converted as post() converts it,
/// posting_strand.hpp) once never-blocking is required.
class strand_ref {
 public:
  strand_ref(const io_strand& strand, const io_strand& posting) noexcept
      : use_(&strand), posting_(&posting) {}

  /// The strand things run on (equal, as a strand, to the client's).
  [[nodiscard]] const io_strand& strand() const noexcept { return *use_; }

  template <class Function>
  void execute(Function&& f) const {
    use_->execute(std::forward<Function>(f));
  }
  [[nodiscard]] strand_ref require(boost::asio::execution::blocking_t::never_t) const noexcept {
    return {*posting_, *posting_};
  }
  [[nodiscard]] boost::asio::execution::blocking_t query(
      boost::asio::execution::blocking_t) const noexcept {
    if (use_ == posting_) return boost::asio::execution::blocking.never;
    return boost::asio::execution::blocking.possibly;
  }
  [[nodiscard]] boost::asio::execution_context& query(
      boost::asio::execution::context_t) const noexcept {
    return boost::asio::query(*use_, boost::asio::execution::context);
  }
  friend bool operator==(const strand_ref& a, const strand_ref& b) noexcept {
    return a.use_ == b.use_ && a.posting_ == b.posting_;
  }
  friend bool operator!=(const strand_ref& a, const strand_ref& b) noexcept { return !(a == b); }

 private:
  const io_strand* use_;
  const io_strand* posting_;
};

}  // namespace idem::detail
