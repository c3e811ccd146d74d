#include "policy/retry_budget.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cmath>
#include <latch>
#include <limits>
#include <thread>
#include <vector>

namespace idem {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using time_point = retry_budget::time_point;

// Virtual time: an arbitrary steady_clock reading, never the real clock.
const time_point budget_t0 = time_point{} + 1000h;

// Spends every whole token there is at `now`; returns how many.
int drain(retry_budget& budget, time_point now) {
  int spent = 0;
  while (budget.try_spend(now))
    ++spent;
  return spent;
}

TEST(RetryBudget, DefaultPolicyMatchesTheContract) {
  const retry_budget_policy p{};
  EXPECT_EQ(p.reserve, 100.0);
  EXPECT_EQ(p.per_first_attempt, 1.0);
  EXPECT_EQ(p.trickle_per_second, 1.0);
}

TEST(RetryBudget, StartsFull) {
  retry_budget budget{{.reserve = 5}, budget_t0};
  EXPECT_EQ(budget.tokens(budget_t0), 5.0);
  EXPECT_EQ(budget.time_until_token(budget_t0), 0ms);
}

TEST(RetryBudget, DrainsThenRefusesRetries) {
  retry_budget budget{{.reserve = 5}, budget_t0};
  for (int i = 0; i < 5; ++i)
    EXPECT_TRUE(budget.try_spend(budget_t0)) << i;
  EXPECT_FALSE(budget.try_spend(budget_t0));
  EXPECT_FALSE(budget.try_spend(budget_t0));
  EXPECT_EQ(budget.tokens(budget_t0), 0.0);
}

TEST(RetryBudget, RefillsByTrickleOneTokenPerSecond) {
  retry_budget budget{{.reserve = 5, .trickle_per_second = 1}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 5);
  EXPECT_FALSE(budget.try_spend(budget_t0 + 999ms));
  EXPECT_TRUE(budget.try_spend(budget_t0 + 1000ms));
  EXPECT_FALSE(budget.try_spend(budget_t0 + 1000ms));
  EXPECT_EQ(drain(budget, budget_t0 + 4s), 3);
}

TEST(RetryBudget, TrickleIsProportionalToElapsedTime) {
  retry_budget budget{{.reserve = 10, .trickle_per_second = 4}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 10);
  EXPECT_DOUBLE_EQ(budget.tokens(budget_t0 + 500ms), 2.0);
  EXPECT_DOUBLE_EQ(budget.tokens(budget_t0 + 1250ms), 5.0);
}

TEST(RetryBudget, TrickleNeverFillsBeyondTheReserve) {
  retry_budget budget{{.reserve = 5, .trickle_per_second = 1}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 5);
  EXPECT_EQ(budget.tokens(budget_t0 + 1h), 5.0);
  EXPECT_EQ(drain(budget, budget_t0 + 1h), 5);
}

TEST(RetryBudget, TimeSpentFullIsNotBanked) {
  retry_budget budget{{.reserve = 5, .trickle_per_second = 1}, budget_t0};
  // An hour at the reserve, then a burst: the hour earned nothing beyond the reserve...
  ASSERT_EQ(drain(budget, budget_t0 + 1h), 5);
  // ...and the trickle restarts from the burst, not from budget_t0.
  EXPECT_FALSE(budget.try_spend(budget_t0 + 1h + 999ms));
  EXPECT_TRUE(budget.try_spend(budget_t0 + 1h + 1s));
}

TEST(RetryBudget, EachFirstAttemptEarnsOneToken) {
  retry_budget budget{{.reserve = 5, .trickle_per_second = 0}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 5);
  for (int i = 0; i < 3; ++i)
    budget.on_first_attempt(budget_t0);
  EXPECT_EQ(budget.tokens(budget_t0), 3.0);
  EXPECT_EQ(drain(budget, budget_t0), 3);
}

TEST(RetryBudget, FirstAttemptEarningsFollowThePolicy) {
  retry_budget budget{{.reserve = 5, .per_first_attempt = 0.5, .trickle_per_second = 0}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 5);
  budget.on_first_attempt(budget_t0);
  EXPECT_FALSE(budget.try_spend(budget_t0));
  budget.on_first_attempt(budget_t0);
  EXPECT_TRUE(budget.try_spend(budget_t0));
}

TEST(RetryBudget, EarningsAreCappedByTheReserve) {
  retry_budget budget{{.reserve = 5, .trickle_per_second = 0}, budget_t0};
  for (int i = 0; i < 100; ++i)
    budget.on_first_attempt(budget_t0);
  EXPECT_EQ(budget.tokens(budget_t0), 5.0);
  EXPECT_EQ(drain(budget, budget_t0), 5);
}

TEST(RetryBudget, RetriesNeverExceedFirstAttemptsPlusReservePlusTrickle) {
  // An outage: every one of 600 intents (one per 100 ms for 60 s) wants five retries. The retries
  // granted are bounded by what the contract promises, and all of it is granted: a server that
  // makes progress is not given up on.
  retry_budget budget{{.reserve = 10, .per_first_attempt = 1, .trickle_per_second = 1}, budget_t0};
  int first_attempts = 0;
  int retries = 0;
  for (int tick = 1; tick <= 600; ++tick) {
    const auto now = budget_t0 + tick * 100ms;
    budget.on_first_attempt(now);
    ++first_attempts;
    for (int r = 0; r < 5; ++r)
      retries += budget.try_spend(now) ? 1 : 0;
  }
  const int bound = first_attempts + 10 + 60;  // + reserve + 60 s of trickle
  EXPECT_LE(retries, bound);
  // Granted up to what a full bucket could not hold at the start (the first tick's token and
  // trickle) and a fraction of a token left at the end.
  EXPECT_GE(retries, bound - 2);
}

TEST(RetryBudget, TimeUntilTokenIsZeroWhileOneIsAvailable) {
  retry_budget budget{{.reserve = 2}, budget_t0};
  EXPECT_EQ(budget.time_until_token(budget_t0), 0ms);
  ASSERT_TRUE(budget.try_spend(budget_t0));
  EXPECT_EQ(budget.time_until_token(budget_t0), 0ms);
}

TEST(RetryBudget, TimeUntilTokenCountsDownWithTheTrickle) {
  retry_budget budget{{.reserve = 5, .trickle_per_second = 1}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 5);
  EXPECT_EQ(budget.time_until_token(budget_t0), 1000ms);
  EXPECT_EQ(budget.time_until_token(budget_t0 + 250ms), 750ms);
  EXPECT_EQ(budget.time_until_token(budget_t0 + 1s), 0ms);
}

TEST(RetryBudget, TimeUntilTokenRoundsUpSoTheTokenIsThereAfterIt) {
  retry_budget budget{{.reserve = 5, .trickle_per_second = 3}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 5);
  const auto wait = budget.time_until_token(budget_t0);
  EXPECT_EQ(wait, 334ms);  // a third of a second, rounded up
  EXPECT_FALSE(budget.try_spend(budget_t0 + wait - 1ms));
  EXPECT_TRUE(budget.try_spend(budget_t0 + wait));
}

TEST(RetryBudget, WaitingTimeUntilTokenAlwaysYieldsAToken) {
  // Floating-point rounding must not leave the token a hair short at the promised instant.
  for (double trickle : {0.1, 0.3, 0.7, 1.0, 3.0, 7.0, 9.9, 1000.0}) {
    for (double earned : {0.0, 0.1, 0.2, 0.3, 0.7, 0.9}) {
      retry_budget budget{
          {.reserve = 3, .per_first_attempt = earned, .trickle_per_second = trickle}, budget_t0};
      ASSERT_EQ(drain(budget, budget_t0), 3);
      budget.on_first_attempt(budget_t0);
      const auto wait = budget.time_until_token(budget_t0);
      EXPECT_TRUE(budget.try_spend(budget_t0 + wait))
          << "trickle " << trickle << " earned " << earned;
    }
  }
}

TEST(RetryBudget, TimeUntilTokenIsHoursWithoutATrickle) {
  retry_budget budget{{.reserve = 5, .trickle_per_second = 0}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 5);
  EXPECT_GE(budget.time_until_token(budget_t0), 1h);
}

TEST(RetryBudget, TimeUntilTokenIsHoursWhenTheReserveCannotHoldAToken) {
  retry_budget budget{{.reserve = 0.5, .trickle_per_second = 1}, budget_t0};
  EXPECT_FALSE(budget.try_spend(budget_t0 + 1h));
  EXPECT_GE(budget.time_until_token(budget_t0 + 1h), 1h);
}

TEST(RetryBudget, TinyTrickleSaturatesInsteadOfOverflowing) {
  retry_budget budget{{.reserve = 5, .trickle_per_second = 1e-300}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 5);
  const auto wait = budget.time_until_token(budget_t0);
  EXPECT_GE(wait, 1h);
  EXPECT_LT(wait, milliseconds::max());
}

TEST(RetryBudget, OutOfOrderReadingsNeverCreditTheSameIntervalTwice) {
  // Threads read the clock before they take the lock, so readings can arrive out of order.
  retry_budget budget{{.reserve = 5, .trickle_per_second = 1}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 5);
  EXPECT_DOUBLE_EQ(budget.tokens(budget_t0 + 2s), 2.0);
  EXPECT_DOUBLE_EQ(budget.tokens(budget_t0 + 1s), 2.0);  // an earlier reading adds nothing...
  EXPECT_DOUBLE_EQ(budget.tokens(budget_t0 + 2s), 2.0);  // ...and does not reopen [1 s, 2 s]
  EXPECT_DOUBLE_EQ(budget.tokens(budget_t0 + 3s), 3.0);
}

TEST(RetryBudget, TimeUntilTokenAccountsForALaterReadingAlreadySeen) {
  retry_budget budget{{.reserve = 5, .trickle_per_second = 1}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0 + 10s),
            5);  // the bucket is now accounted up to budget_t0 + 10 s
  // Seen from an earlier reading, the next token is a second after budget_t0 + 10 s, not after
  // budget_t0 + 9 s.
  EXPECT_EQ(budget.time_until_token(budget_t0 + 9s), 2000ms);
}

TEST(RetryBudget, NegativeOrNanPolicyValuesCountAsZero) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  retry_budget empty{{.reserve = -1}, budget_t0};
  EXPECT_EQ(empty.tokens(budget_t0), 0.0);
  EXPECT_FALSE(empty.try_spend(budget_t0 + 1h));

  retry_budget no_trickle{{.reserve = 5, .per_first_attempt = -3, .trickle_per_second = nan},
                          budget_t0};
  ASSERT_EQ(drain(no_trickle, budget_t0), 5);
  no_trickle.on_first_attempt(budget_t0);
  EXPECT_EQ(no_trickle.tokens(budget_t0 + 1h), 0.0);
  EXPECT_FALSE(no_trickle.try_spend(budget_t0 + 1h));

  retry_budget nan_reserve{{.reserve = nan}, budget_t0};
  EXPECT_EQ(nan_reserve.tokens(budget_t0), 0.0);
  EXPECT_FALSE(std::isnan(nan_reserve.tokens(budget_t0 + 1h)));
}

// ---------------------------------------------------------------------------------------------
// Concurrency: one budget is shared by every intent of a client.

TEST(RetryBudget, ConcurrentSpendersNeverSpendMoreTokensThanExist) {
  constexpr int threads = 8;
  constexpr int attempts_per_thread = 500;
  retry_budget budget{{.reserve = 1000, .trickle_per_second = 0}, budget_t0};
  std::atomic<int> spent{0};
  std::latch start{threads};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      start.arrive_and_wait();  // maximise contention: everyone starts together
      for (int i = 0; i < attempts_per_thread; ++i) {
        if (budget.try_spend(budget_t0)) spent.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  for (auto& w : workers)
    w.join();
  // 4000 tries for 1000 tokens: exactly the tokens that exist are spent, none twice.
  EXPECT_EQ(spent.load(), 1000);
  EXPECT_EQ(budget.tokens(budget_t0), 0.0);
}

TEST(RetryBudget, ConcurrentEarnersAndSpendersStayWithinWhatWasEarned) {
  constexpr int earners = 4;
  constexpr int spenders = 4;
  constexpr int first_attempts_per_earner = 250;
  retry_budget budget{{.reserve = 100, .trickle_per_second = 0}, budget_t0};
  std::atomic<int> spent{0};
  std::latch start{earners + spenders};
  std::vector<std::thread> workers;
  for (int t = 0; t < earners; ++t) {
    workers.emplace_back([&] {
      start.arrive_and_wait();
      for (int i = 0; i < first_attempts_per_earner; ++i)
        budget.on_first_attempt(budget_t0);
    });
  }
  for (int t = 0; t < spenders; ++t) {
    workers.emplace_back([&] {
      start.arrive_and_wait();
      for (int i = 0; i < 1000; ++i) {
        if (budget.try_spend(budget_t0)) spent.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  for (auto& w : workers)
    w.join();
  const double left = budget.tokens(budget_t0);
  // Nothing is created or lost: what was spent plus what is left never exceeds the reserve plus
  // one token per first attempt (the reserve cap can only make it less).
  EXPECT_LE(spent.load(), 100 + earners * first_attempts_per_earner);
  EXPECT_LE(spent.load() + left, 100.0 + earners * first_attempts_per_earner);
  EXPECT_GE(left, 0.0);
  EXPECT_LE(left, 100.0);
  EXPECT_EQ(left, std::floor(left));  // whole tokens in, whole tokens out
}

TEST(RetryBudget, ConcurrentSpendersWithInterleavedClockReadingsGetOnlyTheTrickle) {
  // Each thread walks its own clock through 10 s in 10 ms steps; across threads the readings
  // arrive out of order. 10 s of trickle is at most 10 tokens: crediting an interval twice
  // would show up as more.
  constexpr int threads = 8;
  retry_budget budget{{.reserve = 50, .trickle_per_second = 1}, budget_t0};
  ASSERT_EQ(drain(budget, budget_t0), 50);
  std::atomic<int> spent{0};
  std::latch start{threads};
  std::vector<std::thread> workers;
  for (int t = 0; t < threads; ++t) {
    workers.emplace_back([&] {
      start.arrive_and_wait();
      for (int step = 1; step <= 999; ++step) {
        if (budget.try_spend(budget_t0 + step * 10ms))
          spent.fetch_add(1, std::memory_order_relaxed);
      }
    });
  }
  for (auto& w : workers)
    w.join();
  // 9.99 s of trickle: nine whole tokens, all of them granted; 0.99 of a token is left.
  EXPECT_EQ(spent.load(), 9);
  EXPECT_NEAR(budget.tokens(budget_t0 + 9990ms), 0.99, 1e-6);
}

}  // namespace
}  // namespace idem
