#pragma once
// Which of its callers' event loops are gone, for a journal whose writer thread completes writes
// on those loops after the fact (private to the idem library). A write holds work on the
// caller's io_context until its completion is posted there; an app that destroys that
// io_context before the journal (as a journal kept for the app's whole life is) would otherwise
// have the writer post into, and let go of work on, a destroyed scheduler.
//
// Each io_context a journal completes writes on gets a service of this kind. Its shutdown()
// runs when the context is destroyed, before the context's scheduler shuts down (services shut
// down in the reverse order of their creation, and the scheduler is the first), and tells every
// journal it watches: the journal drops that context's waiting writes there and then (their
// handlers are destroyed uncalled, as the context destroys its own), and never posts to it
// again.

#include <boost/asio/execution_context.hpp>
#include <functional>
#include <memory>
#include <mutex>
#include <unordered_set>
#include <vector>

namespace idem::detail {

/// One journal's side: the contexts that are gone, and how to drop their waiting writes.
/// Thread-safe; `mutex` must be held while the journal completes writes (so that a context
/// cannot go in the middle of a completion) and is taken by a context's shutdown.
struct journal_room {
  std::mutex mutex;
  std::unordered_set<const boost::asio::execution_context*> gone;  // guarded by mutex
  /// Drops the waiting writes of a context that is going (mutex held); empty once the journal
  /// itself is going.
  std::function<void(const boost::asio::execution_context*)> drop;  // guarded by mutex

  /// `ctx` is going (its shutdown, mutex held by the caller): remember it, drop its writes.
  void context_gone(const boost::asio::execution_context* ctx);
};

/// The service each watched context holds. Thread-safe.
class journal_context_watch : public boost::asio::execution_context::service {
 public:
  using key_type = journal_context_watch;
  static boost::asio::execution_context::id id;

  explicit journal_context_watch(boost::asio::execution_context& ctx);
  /// `room`'s journal completes writes on this context from now on (idempotent).
  void add(const std::shared_ptr<journal_room>& room);

 private:
  void shutdown() override;

  std::mutex mutex_;
  std::vector<std::weak_ptr<journal_room>> rooms_;
};

/// Makes `room` watch `ctx` (once per context: the caller caches the last one it watched).
void watch_context(boost::asio::execution_context& ctx, const std::shared_ptr<journal_room>& room);

}  // namespace idem::detail
