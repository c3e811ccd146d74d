#include "transport/curl_timer.hpp"

#include <boost/asio/post.hpp>
#include <utility>

namespace idem::detail {

namespace asio = boost::asio;

curl_timer::curl_timer(asio::any_io_executor ex, std::function<void()> due)
    : ex_(std::move(ex)), timer_(ex_), due_(std::move(due)) {}

void curl_timer::set(long timeout_ms, const std::shared_ptr<void>& keep_alive) {
  if (stopped_) return;
  if (timeout_ms < 0) {
    expiry_.reset();
    if (waiting_) {
      waiting_.reset();
      ++generation_;
      timer_.cancel();
    }
    return;  // a pending post finds no expiry and does nothing
  }
  if (timeout_ms == 0) {
    expiry_ = at_once;
    // Acting here would re-enter curl from its own callback: post, once.
    if (!post_pending_) {
      post_pending_ = true;
      ++posts_;
      asio::post(ex_, [this, keep_alive] { on_post(); });
    }
    return;
  }
  const auto at = clock::now() + std::chrono::milliseconds(timeout_ms);
  expiry_ = at;
  if (waiting_ && *waiting_ <= at) return;  // fires first, then waits for the rest
  arm(at, keep_alive);
}

bool curl_timer::expired() const {
  return *expiry_ == at_once || *expiry_ <= clock::now();
}

void curl_timer::stop() noexcept {
  stopped_ = true;
  expiry_.reset();
  waiting_.reset();
  ++generation_;
  timer_.cancel();
}

void curl_timer::arm(clock::time_point at, const std::shared_ptr<void>& keep_alive) {
  // expires_at aborts the wait it replaces; that completion then carries an old generation.
  const std::uint64_t generation = ++generation_;
  waiting_ = at;
  ++waits_started_;
  timer_.expires_at(at);
  timer_.async_wait([this, generation, keep_alive](const boost::system::error_code&) {
    on_wait(generation, keep_alive);
  });
}

void curl_timer::on_wait(std::uint64_t generation, const std::shared_ptr<void>& keep_alive) {
  if (stopped_ || generation != generation_) return;  // replaced, cancelled or stopped
  waiting_.reset();
  if (!expiry_) return;
  if (!expired()) {
    // Curl moved its expiry later while this wait was pending: wait for the rest.
    try {
      arm(*expiry_, keep_alive);
      return;
    } catch (...) {
      // Out of memory: act early instead. That is harmless, and curl answers a timeout action
      // with its timeout again, which arms anew.
    }
  }
  expiry_.reset();  // curl tells the next one from inside the action
  due_();
}

void curl_timer::on_post() {
  post_pending_ = false;
  if (stopped_ || !expiry_ || !expired()) return;  // superseded meanwhile
  expiry_.reset();
  due_();
}

}  // namespace idem::detail
