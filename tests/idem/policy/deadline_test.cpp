#include "policy/deadline.hpp"

#include <gtest/gtest.h>

#include <chrono>

namespace idem {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using time_point = deadline::time_point;

// Virtual time: an arbitrary steady_clock reading, never the real clock.
const time_point t0 = time_point{} + 1000h;

// Defaults: 30 s in all, 3 s kept for the lookup, attempts of at least 100 ms and at most 10 s.
const deadline_policy policy{};

TEST(Deadline, DefaultPolicyMatchesTheContract) {
  EXPECT_EQ(policy.total, 30s);
  EXPECT_EQ(policy.lookup_reserve, 3s);
  EXPECT_EQ(policy.min_attempt, 100ms);
  EXPECT_EQ(policy.attempt_timeout, 10s);
}

TEST(Deadline, ExpiresAtStartPlusTotal) {
  const deadline d{t0, policy};
  EXPECT_EQ(d.expires_at(), t0 + 30s);
  EXPECT_FALSE(d.expired(t0 + 30s - 1ns));
  EXPECT_TRUE(d.expired(t0 + 30s));
  EXPECT_TRUE(d.expired(t0 + 1h));
}

TEST(Deadline, LeftCountsDownAndStopsAtZero) {
  const deadline d{t0, policy};
  EXPECT_EQ(d.left(t0), 30s);
  EXPECT_EQ(d.left(t0 + 10s), 20s);
  EXPECT_EQ(d.left(t0 + 30s), 0ms);
  EXPECT_EQ(d.left(t0 + 1h), 0ms);
}

TEST(Deadline, LeftRoundsDownSoItNeverPromisesMoreThanIsLeft) {
  const deadline d{t0, policy};
  EXPECT_EQ(d.left(t0 + 1ns), 29999ms);
  EXPECT_EQ(d.left(t0 + 30s - 1ns), 0ms);
}

TEST(Deadline, ReadingBeforeTheStartCountsTheWholeWayToTheEnd) {
  const deadline d{t0, policy};
  EXPECT_EQ(d.left(t0 - 5s), 35s);
}

TEST(Deadline, AttemptWindowKeepsTheLookupReserve) {
  const deadline d{t0, policy};
  EXPECT_EQ(d.left_for_attempts(t0), 27s);
  EXPECT_EQ(d.left_for_attempts(t0 + 20s), 7s);
  EXPECT_EQ(d.left_for_attempts(t0 + 27s), 0ms);
  // Inside the reserve: time is left, but only for the lookup.
  EXPECT_EQ(d.left(t0 + 28s), 2s);
  EXPECT_EQ(d.left_for_attempts(t0 + 28s), 0ms);
  EXPECT_EQ(d.left_for_attempts(t0 + 1h), 0ms);
}

TEST(Deadline, AttemptStartsOnlyIfTheMinimumIsLeftAfterTheReserve) {
  const deadline d{t0, policy};
  EXPECT_TRUE(d.can_start_attempt(t0));
  EXPECT_TRUE(d.can_start_attempt(t0 + 26900ms));   // exactly 100 ms left for attempts
  EXPECT_FALSE(d.can_start_attempt(t0 + 26901ms));  // 99 ms: not worth starting
  EXPECT_FALSE(d.can_start_attempt(t0 + 28s));      // inside the reserve
  EXPECT_FALSE(d.can_start_attempt(t0 + 1h));
}

TEST(Deadline, AttemptTimeoutIsCappedByThePolicy) {
  const deadline d{t0, policy};
  EXPECT_EQ(d.attempt_timeout(t0), 10s);
  EXPECT_EQ(d.attempt_timeout(t0 + 17s), 10s);
}

TEST(Deadline, AttemptTimeoutIsTrimmedToTheAttemptWindow) {
  const deadline d{t0, policy};
  EXPECT_EQ(d.attempt_timeout(t0 + 20s), 7s);
  EXPECT_EQ(d.attempt_timeout(t0 + 26900ms), 100ms);
  EXPECT_EQ(d.attempt_timeout(t0 + 29s), 0ms);
}

TEST(Deadline, HugeAttemptTimeoutNeverReachesIntoTheReserveOrPastTheEnd) {
  deadline_policy p = policy;
  p.attempt_timeout = milliseconds::max();
  const deadline d{t0, p};
  for (auto now = t0 - 1s; now <= t0 + 31s; now += 37ms) {
    const auto timeout = d.attempt_timeout(now);
    ASSERT_GE(timeout, 0ms);
    ASSERT_LE(now + timeout, std::max(now, d.expires_at() - p.lookup_reserve));
    ASSERT_LE(now + timeout, std::max(now, d.expires_at()));
  }
}

TEST(Deadline, HugeRequestedSleepNeverEndsPastTheAttemptWindow) {
  const deadline d{t0, policy};
  for (auto now = t0 - 1s; now <= t0 + 31s; now += 37ms) {
    const auto sleep = d.trim_sleep(milliseconds::max(), now);
    ASSERT_GE(sleep, 0ms);
    ASSERT_LE(now + sleep, std::max(now, d.expires_at() - policy.lookup_reserve));
  }
  EXPECT_EQ(d.trim_sleep(milliseconds::max(), t0), 27s);
  EXPECT_EQ(d.trim_sleep(1h, t0 + 20s), 7s);
}

TEST(Deadline, ShortSleepIsNotTrimmed) {
  const deadline d{t0, policy};
  EXPECT_EQ(d.trim_sleep(250ms, t0), 250ms);
  EXPECT_EQ(d.trim_sleep(0ms, t0), 0ms);
}

TEST(Deadline, NegativeSleepIsZero) {
  const deadline d{t0, policy};
  EXPECT_EQ(d.trim_sleep(-5s, t0), 0ms);
  EXPECT_EQ(d.trim_sleep(milliseconds::min(), t0), 0ms);
}

TEST(Deadline, SleepFitsOnlyIfAnAttemptCanStillStartAfterIt) {
  const deadline d{t0, policy};
  EXPECT_TRUE(d.sleep_fits(0ms, t0));
  EXPECT_TRUE(d.sleep_fits(26900ms, t0));   // leaves exactly the 100 ms minimum
  EXPECT_FALSE(d.sleep_fits(26901ms, t0));  // leaves 99 ms
  EXPECT_FALSE(d.sleep_fits(27s, t0));
  EXPECT_FALSE(d.sleep_fits(1h, t0));
}

TEST(Deadline, RetryAfterLongerThanTheTimeLeftDoesNotFitWithoutOverflow) {
  const deadline d{t0, policy};
  EXPECT_FALSE(d.sleep_fits(milliseconds::max(), t0));
  EXPECT_FALSE(d.sleep_fits(milliseconds::max(), t0 - 1000h));
}

TEST(Deadline, SleepFitsAgreesWithCanStartAttemptAfterTheSleep) {
  const deadline d{t0, policy};
  for (auto now = t0 - 1s; now <= t0 + 31s; now += 173ms) {
    for (auto wait = 0ms; wait <= 31s; wait += 97ms) {
      ASSERT_EQ(d.sleep_fits(wait, now), d.can_start_attempt(now + wait))
          << "now=t0+" << std::chrono::duration_cast<milliseconds>(now - t0).count()
          << "ms wait=" << wait.count() << "ms";
    }
  }
}

TEST(Deadline, NegativeSleepFitsLikeNoSleep) {
  const deadline d{t0, policy};
  EXPECT_TRUE(d.sleep_fits(-1s, t0));
  EXPECT_FALSE(d.sleep_fits(-1s, t0 + 26901ms));
}

TEST(Deadline, LookupStartsWithAtLeastTheAttemptMinimumLeft) {
  const deadline d{t0, policy};
  EXPECT_TRUE(d.can_start_lookup(t0 + 27s));       // the whole reserve
  EXPECT_TRUE(d.can_start_lookup(t0 + 29900ms));   // exactly 100 ms left
  EXPECT_FALSE(d.can_start_lookup(t0 + 29901ms));  // 99 ms: not worth starting
  EXPECT_FALSE(d.can_start_lookup(t0 + 30s));
  EXPECT_EQ(d.lookup_timeout(t0 + 29900ms), 100ms);
  EXPECT_EQ(d.lookup_sleep_room(t0 + 29s), 900ms);
}

// A reserve no longer than min_attempt: the writes' window ends where the reserve begins, and
// the attempt that ran to that end is reported a little later (the transport's timer and the
// hop back to the client). The reserve exists for the lookup; that lag must not cost it.
TEST(Deadline, AReserveNoLongerThanTheAttemptMinimumStillGetsItsLookupAfterALateTimeout) {
  const deadline d{t0, {.total = 1s, .lookup_reserve = 100ms, .min_attempt = 100ms}};
  EXPECT_EQ(d.attempt_timeout(t0), 900ms);
  EXPECT_TRUE(d.can_start_lookup(t0 + 900ms));
  EXPECT_TRUE(d.can_start_lookup(t0 + 903ms));   // the timeout reported 3 ms late
  EXPECT_TRUE(d.can_start_lookup(t0 + 950ms));   // up to half the reserve late
  EXPECT_FALSE(d.can_start_lookup(t0 + 951ms));  // less than half of it left: too little
  EXPECT_EQ(d.lookup_timeout(t0 + 903ms), 97ms);
  EXPECT_EQ(d.lookup_sleep_room(t0 + 903ms), 47ms);  // a retried lookup keeps the same floor
}

TEST(Deadline, NoReserveMeansTheLookupNeedsTheAttemptMinimum) {
  const deadline d{t0, {.total = 1s, .lookup_reserve = 0ms, .min_attempt = 100ms}};
  EXPECT_TRUE(d.can_start_lookup(t0 + 900ms));
  EXPECT_FALSE(d.can_start_lookup(t0 + 901ms));
}

// Issue 42: a reserve at or above the total left no attempt, so a 3 s deadline with the
// default 3 s reserve sent nothing. A short deadline keeps a tenth of itself for the lookup.
TEST(Deadline, AShortDeadlineKeepsATenthOfItselfForTheLookup) {
  const deadline three{t0, {.total = 3s}};
  EXPECT_EQ(three.lookup_reserve(), 300ms);
  EXPECT_EQ(three.left_for_attempts(t0), 2700ms);
  EXPECT_TRUE(three.can_start_attempt(t0));
  const deadline d{t0, {.total = 2s, .lookup_reserve = 3s}};
  EXPECT_EQ(d.left(t0), 2s);
  EXPECT_EQ(d.left_for_attempts(t0), 1800ms);
  EXPECT_EQ(d.attempt_timeout(t0), 1800ms);
}

// Between the two, the writes get the reserve's length and the lookup the rest; from twice the
// reserve on (the default 30 s) the reserve is kept whole.
TEST(Deadline, TheWritesGetAtLeastTheSmallerOfTheReserveAndNineTenths) {
  EXPECT_EQ((deadline{t0, {.total = 4s}}.lookup_reserve()), 1s);
  EXPECT_EQ((deadline{t0, {.total = 6s}}.lookup_reserve()), 3s);
  EXPECT_EQ((deadline{t0, {}}.lookup_reserve()), 3s);
  EXPECT_EQ((deadline{t0, {.total = 2s, .lookup_reserve = 1s}}.lookup_reserve()), 1s);
  EXPECT_EQ((deadline{t0, {.total = 1s, .lookup_reserve = 0ms}}.lookup_reserve()), 0ms);
}

TEST(Deadline, ADeadlineTooShortForTheMinimumLeavesNoAttempt) {
  const deadline d{t0, {.total = 105ms, .min_attempt = 100ms}};
  EXPECT_EQ(d.left_for_attempts(t0), 95ms);
  EXPECT_FALSE(d.can_start_attempt(t0));
  EXPECT_EQ(d.trim_sleep(1s, t0), 95ms);
}

TEST(Deadline, ZeroMinimumAttemptStillNeedsSomeTimeLeft) {
  const deadline d{t0, {.min_attempt = 0ms}};
  EXPECT_TRUE(d.can_start_attempt(t0 + 27s - 1ms));
  EXPECT_FALSE(d.can_start_attempt(t0 + 27s));
  EXPECT_FALSE(d.sleep_fits(27s, t0));
}

TEST(Deadline, NegativePolicyDurationsCountAsZero) {
  const deadline expired_at_birth{t0, {.total = -5s}};
  EXPECT_EQ(expired_at_birth.expires_at(), t0);
  EXPECT_TRUE(expired_at_birth.expired(t0));
  EXPECT_FALSE(expired_at_birth.can_start_attempt(t0));

  const deadline no_reserve{t0, {.lookup_reserve = -1s, .attempt_timeout = -1s}};
  EXPECT_EQ(no_reserve.left_for_attempts(t0), 30s);
  EXPECT_EQ(no_reserve.attempt_timeout(t0), 0ms);
}

TEST(Deadline, HugeTotalSaturatesInsteadOfWrappingIntoThePast) {
  const deadline d{t0, {.total = milliseconds::max()}};
  EXPECT_EQ(d.expires_at(), time_point::max());
  EXPECT_FALSE(d.expired(t0));
  EXPECT_GT(d.left(t0), 100'000h);
  EXPECT_TRUE(d.can_start_attempt(t0));
  EXPECT_EQ(d.attempt_timeout(t0), 10s);
  EXPECT_TRUE(d.sleep_fits(24h, t0));
}

TEST(Deadline, HugeTotalFromTheEarliestReadingDoesNotOverflow) {
  const auto earliest = time_point::min();
  const deadline d{earliest, {.total = milliseconds::max()}};
  EXPECT_EQ(d.expires_at(), time_point::max());
  // The distance from min() to max() exceeds the clock's range: left() saturates.
  EXPECT_EQ(d.left(earliest), std::chrono::floor<milliseconds>(time_point::duration::max()));
  EXPECT_TRUE(d.can_start_attempt(earliest));
  EXPECT_EQ(d.trim_sleep(1h, earliest), 1h);
}

TEST(Deadline, StartNearTheClocksEndSaturates) {
  const auto late = time_point::max() - 1s;
  const deadline d{late, policy};
  EXPECT_EQ(d.expires_at(), time_point::max());
  EXPECT_EQ(d.left(late), 1s);
}

}  // namespace
}  // namespace idem
