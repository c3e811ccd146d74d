#include "policy/retry_budget.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>

namespace idem {
namespace {

// Negative or NaN rates and capacities would let the bucket run backwards or poison it.
double non_negative(double v) {
  return v >= 0.0 ? v : 0.0;
}

retry_budget_policy sanitized(retry_budget_policy p) {
  p.reserve = non_negative(p.reserve);
  p.per_first_attempt = non_negative(p.per_first_attempt);
  p.trickle_per_second = non_negative(p.trickle_per_second);
  return p;
}

// What time_until_token answers when no amount of waiting would produce a token.
constexpr std::chrono::milliseconds never = std::chrono::hours{24};

double seconds_between(retry_budget::time_point from, retry_budget::time_point to) {
  return std::chrono::duration<double>(to - from).count();
}

}  // namespace

retry_budget::retry_budget(const retry_budget_policy& policy, time_point now)
    : policy_(sanitized(policy)), tokens_(policy_.reserve), last_(now) {}

void retry_budget::refill(time_point now) const {
  // Callers read their clock before taking the lock, so `now` may arrive slightly out of order.
  // An earlier `now` adds nothing and never moves last_ back: otherwise the same interval
  // would be credited twice.
  if (now <= last_) return;
  tokens_ =
      std::min(policy_.reserve, tokens_ + seconds_between(last_, now) * policy_.trickle_per_second);
  last_ = now;
}

void retry_budget::on_first_attempt(time_point now) {
  std::lock_guard lock{mutex_};
  refill(now);
  tokens_ = std::min(policy_.reserve, tokens_ + policy_.per_first_attempt);
}

bool retry_budget::try_spend(time_point now) {
  std::lock_guard lock{mutex_};
  refill(now);
  if (tokens_ < 1.0) return false;
  tokens_ -= 1.0;
  return true;
}

std::chrono::milliseconds retry_budget::time_until_token(time_point now) const {
  std::lock_guard lock{mutex_};
  refill(now);
  if (tokens_ >= 1.0) return std::chrono::milliseconds{0};
  if (policy_.trickle_per_second <= 0.0 || policy_.reserve < 1.0) return never;

  // The trickle counts from last_, which a caller with a later clock reading may have moved past
  // `now`.
  const double need = (1.0 - tokens_) / policy_.trickle_per_second + seconds_between(now, last_);
  if (!(need * 1000.0 < static_cast<double>(never.count()))) return never;
  auto wait = std::chrono::milliseconds{static_cast<std::int64_t>(std::ceil(need * 1000.0))};
  // Floating-point rounding can leave the refill a hair short of a whole token at exactly the
  // computed instant; step forward until the very arithmetic refill uses agrees.
  while (wait < never &&
         tokens_ + seconds_between(last_, now + wait) * policy_.trickle_per_second < 1.0) {
    wait += std::chrono::milliseconds{1};
  }
  return wait;
}

double retry_budget::tokens(time_point now) const {
  std::lock_guard lock{mutex_};
  refill(now);
  return tokens_;
}

}  // namespace idem
