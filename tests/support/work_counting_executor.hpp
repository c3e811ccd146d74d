#pragma once
// An executor for tests of components that complete from threads of their own: it runs work
// on an io_context like the context's own executor, and counts the holds its tracked copies
// keep on that loop, and which of them were let go on a thread other than the loop's.
//
// Why it matters: when the last hold on an io_context is let go, the context stops. Let go on
// a foreign thread, that stop can land after the loop's owner has restarted it for new work,
// and `run` returns with a completion still owed.

#include <atomic>
#include <boost/asio/execution.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/prefer.hpp>
#include <boost/asio/require.hpp>
#include <memory>
#include <thread>
#include <type_traits>
#include <utility>

namespace idem::kit {

struct work_counts {
  std::thread::id loop_thread = std::this_thread::get_id();
  std::atomic<int> held{0};
  std::atomic<int> taken{0};
  std::atomic<int> let_go_off_loop{0};
};

template <bool Tracked>
class work_counting_executor {
  using plain_inner = boost::asio::io_context::executor_type;
  using inner_type = std::conditional_t<Tracked,
                                        decltype(boost::asio::prefer(
                                            std::declval<plain_inner>(),
                                            boost::asio::execution::outstanding_work.tracked)),
                                        plain_inner>;

 public:
  work_counting_executor(boost::asio::io_context& io, std::shared_ptr<work_counts> counts)
      : work_counting_executor(io.get_executor(), std::move(counts)) {}

  template <bool Other>
  work_counting_executor(const work_counting_executor<Other>& other)  // NOLINT: a conversion
      : work_counting_executor(other.plain(), other.counts()) {}

  work_counting_executor(const work_counting_executor& other) noexcept
      : inner_(other.inner_), counts_(other.counts_) {
    take();
  }
  work_counting_executor(work_counting_executor&& other) noexcept
      : inner_(std::move(other.inner_)), counts_(std::exchange(other.counts_, nullptr)) {}
  work_counting_executor& operator=(const work_counting_executor& other) noexcept {
    if (this != &other) {
      let_go();
      inner_ = other.inner_;
      counts_ = other.counts_;
      take();
    }
    return *this;
  }
  work_counting_executor& operator=(work_counting_executor&& other) noexcept {
    if (this != &other) {
      let_go();
      inner_ = std::move(other.inner_);
      counts_ = std::exchange(other.counts_, nullptr);
    }
    return *this;
  }
  ~work_counting_executor() { let_go(); }

  [[nodiscard]] boost::asio::io_context& query(boost::asio::execution::context_t) const noexcept {
    return boost::asio::query(inner_, boost::asio::execution::context);
  }
  static constexpr auto query(boost::asio::execution::blocking_t) noexcept {
    return boost::asio::execution::blocking.never;
  }
  static constexpr auto query(boost::asio::execution::outstanding_work_t) noexcept {
    if constexpr (Tracked)
      return boost::asio::execution::outstanding_work.tracked;
    else
      return boost::asio::execution::outstanding_work.untracked;
  }

  [[nodiscard]] work_counting_executor require(
      boost::asio::execution::blocking_t::never_t) const noexcept {
    return *this;
  }
  [[nodiscard]] work_counting_executor<true> require(
      boost::asio::execution::outstanding_work_t::tracked_t) const {
    return {plain(), counts_};
  }
  [[nodiscard]] work_counting_executor<false> require(
      boost::asio::execution::outstanding_work_t::untracked_t) const {
    return {plain(), counts_};
  }

  template <typename F>
  void execute(F&& f) const {
    boost::asio::require(inner_, boost::asio::execution::blocking.never)
        .execute(std::forward<F>(f));
  }

  friend bool operator==(const work_counting_executor& a,
                         const work_counting_executor& b) noexcept {
    return a.inner_ == b.inner_ && a.counts_ == b.counts_;
  }
  friend bool operator!=(const work_counting_executor& a,
                         const work_counting_executor& b) noexcept {
    return !(a == b);
  }

  [[nodiscard]] plain_inner plain() const {
    return boost::asio::prefer(inner_, boost::asio::execution::outstanding_work.untracked);
  }
  [[nodiscard]] const std::shared_ptr<work_counts>& counts() const { return counts_; }

 private:
  template <bool>
  friend class work_counting_executor;

  work_counting_executor(plain_inner inner, std::shared_ptr<work_counts> counts)
      : inner_(make_inner(inner)), counts_(std::move(counts)) {
    take();
  }

  static inner_type make_inner(plain_inner inner) {
    if constexpr (Tracked)
      return boost::asio::prefer(inner, boost::asio::execution::outstanding_work.tracked);
    else
      return inner;
  }

  void take() noexcept {
    if (Tracked && counts_) {
      counts_->held.fetch_add(1);
      counts_->taken.fetch_add(1);
    }
  }
  void let_go() noexcept {
    if (Tracked && counts_) {
      counts_->held.fetch_sub(1);
      if (std::this_thread::get_id() != counts_->loop_thread) counts_->let_go_off_loop.fetch_add(1);
      counts_ = nullptr;
    }
  }

  inner_type inner_;
  std::shared_ptr<work_counts> counts_;
};

}  // namespace idem::kit
