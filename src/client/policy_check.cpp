#include "client/policy_check.hpp"

#include <cmath>
#include <stdexcept>
#include <string>

namespace idem::detail {
namespace {

using std::chrono::milliseconds;

[[noreturn]] void refuse(std::string_view where, std::string_view field, const std::string& why) {
  std::string message(where);
  message.append(".").append(field).append(": ").append(why);
  throw std::invalid_argument(message);
}

std::string ms(milliseconds d) {
  return std::to_string(d.count()) + " ms";
}

void positive(milliseconds d, std::string_view where, std::string_view field) {
  if (d <= milliseconds{0}) refuse(where, field, "must be positive, not " + ms(d));
}

void not_negative(milliseconds d, std::string_view where, std::string_view field) {
  if (d < milliseconds{0}) refuse(where, field, "must not be negative, not " + ms(d));
}

// NaN is refused too (it compares false with everything).
void not_negative(double v, std::string_view where, std::string_view field) {
  if (!(v >= 0.0) || !std::isfinite(v)) {
    refuse(where, field, "must be a finite number of at least 0, not " + std::to_string(v));
  }
}

void check_backoff(const backoff_policy& policy) {
  std::visit(
      [](const auto& p) {
        not_negative(p.base, "backoff", "base");
        not_negative(p.cap, "backoff", "cap");
        if (!(p.multiplier > 0.0) || !std::isfinite(p.multiplier)) {
          refuse("backoff", "multiplier", "must be a finite number above 0");
        }
      },
      policy);
}

}  // namespace

void check_deadline(const deadline_policy& policy, std::string_view where) {
  positive(policy.total, where, "total");
  not_negative(policy.lookup_reserve, where, "lookup_reserve");
  not_negative(policy.min_attempt, where, "min_attempt");
  positive(policy.attempt_timeout, where, "attempt_timeout");
  if (policy.min_attempt > policy.total) {
    refuse(where, "min_attempt",
           ms(policy.min_attempt) + " is longer than the whole deadline (total " +
               ms(policy.total) + "): no attempt could ever start");
  }
}

void check_policy(const client_options& options) {
  check_deadline(options.deadline, "deadline");
  check_backoff(options.backoff);
  not_negative(options.retry_budget.reserve, "retry_budget", "reserve");
  not_negative(options.retry_budget.per_first_attempt, "retry_budget", "per_first_attempt");
  not_negative(options.retry_budget.trickle_per_second, "retry_budget", "trickle_per_second");
  positive(options.poll_interval, "client_options", "poll_interval");
  positive(options.resend_interval, "client_options", "resend_interval");
  positive(options.server_key_retention, "client_options", "server_key_retention");
  not_negative(options.key_retention_margin, "client_options", "key_retention_margin");
  not_negative(options.lifecycle.resume_spread, "lifecycle", "resume_spread");
}

}  // namespace idem::detail
