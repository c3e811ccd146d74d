#include "policy/backoff.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <random>
#include <vector>

namespace idem {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;

constexpr std::uint64_t seed = 20240601;
// Independent sequences per retry index: enough that every bound below is probed at both ends.
constexpr int sequences = 2000;
constexpr int retries_per_sequence = 10;

// min(cap, base * multiplier^(retry - 1)), computed the obvious way for small retry counts.
milliseconds expected_envelope(milliseconds base, milliseconds cap, double multiplier, int retry) {
  double e = static_cast<double>(base.count());
  for (int i = 1; i < retry; ++i)
    e *= multiplier;
  return e >= static_cast<double>(cap.count()) ? cap : milliseconds{static_cast<std::int64_t>(e)};
}

// delays[r] holds the delay of retry r + 1 of every sequence.
std::vector<std::vector<milliseconds>> draw_sequences(const backoff_policy& policy,
                                                      std::mt19937_64& rng) {
  std::vector<std::vector<milliseconds>> delays(retries_per_sequence);
  for (int s = 0; s < sequences; ++s) {
    backoff b{policy};
    for (int r = 0; r < retries_per_sequence; ++r)
      delays[r].push_back(b.next_delay(rng));
  }
  return delays;
}

TEST(Backoff, DefaultPolicyIsFullJitter) {
  backoff b;
  ASSERT_TRUE(std::holds_alternative<full_jitter>(b.policy()));
  EXPECT_EQ(std::get<full_jitter>(b.policy()).base, 100ms);
  EXPECT_EQ(std::get<full_jitter>(b.policy()).cap, 5000ms);
}

TEST(Backoff, RetriesCountsTheDelaysDrawn) {
  std::mt19937_64 rng{seed};
  backoff b{full_jitter{}};
  EXPECT_EQ(b.retries(), 0u);
  for (int i = 0; i < 7; ++i)
    (void)b.next_delay(rng);
  EXPECT_EQ(b.retries(), 7u);
}

TEST(Backoff, FullJitterStaysWithinZeroAndTheEnvelopeOfEachRetry) {
  const full_jitter p{.base = 100ms, .cap = 5000ms, .multiplier = 2.0};
  std::mt19937_64 rng{seed};
  const auto delays = draw_sequences(p, rng);
  for (int r = 0; r < retries_per_sequence; ++r) {
    const auto envelope = expected_envelope(p.base, p.cap, p.multiplier, r + 1);
    for (auto d : delays[r]) {
      ASSERT_GE(d, 0ms) << "retry " << r + 1;
      ASSERT_LE(d, envelope) << "retry " << r + 1;
    }
  }
}

TEST(Backoff, FullJitterUsesTheWholeEnvelopeSoItGrowsUntilTheCap) {
  const full_jitter p{.base = 100ms, .cap = 5000ms, .multiplier = 2.0};
  std::mt19937_64 rng{seed};
  const auto delays = draw_sequences(p, rng);
  for (int r = 0; r < retries_per_sequence; ++r) {
    const auto envelope = expected_envelope(p.base, p.cap, p.multiplier, r + 1);
    const auto [lo, hi] = std::minmax_element(delays[r].begin(), delays[r].end());
    // Out of 2000 uniform draws some land in the bottom and the top 5% of the envelope; a
    // policy stuck at the first envelope, or one that never jitters, fails here.
    EXPECT_LE(*lo, envelope / 20) << "retry " << r + 1;
    EXPECT_GE(*hi, envelope - envelope / 20) << "retry " << r + 1;
  }
  // 100, 200, 400, 800, 1600, 3200, then the cap.
  EXPECT_EQ(expected_envelope(p.base, p.cap, p.multiplier, 6), 3200ms);
  EXPECT_EQ(expected_envelope(p.base, p.cap, p.multiplier, 7), 5000ms);
}

TEST(Backoff, EqualJitterNeverWaitsLessThanHalfTheEnvelope) {
  const equal_jitter p{.base = 100ms, .cap = 5000ms, .multiplier = 2.0};
  std::mt19937_64 rng{seed};
  const auto delays = draw_sequences(p, rng);
  for (int r = 0; r < retries_per_sequence; ++r) {
    const auto envelope = expected_envelope(p.base, p.cap, p.multiplier, r + 1);
    const auto [lo, hi] = std::minmax_element(delays[r].begin(), delays[r].end());
    EXPECT_GE(*lo * 2, envelope) << "retry " << r + 1;
    EXPECT_LE(*hi, envelope) << "retry " << r + 1;
    // Both ends of [envelope/2, envelope] are reached, so the envelope really grows.
    EXPECT_LE(*lo, envelope / 2 + envelope / 20) << "retry " << r + 1;
    EXPECT_GE(*hi, envelope - envelope / 20) << "retry " << r + 1;
  }
}

TEST(Backoff, FullJitterDrawsEveryWholeMillisecondOfTheEnvelopeAlike) {
  // Envelope 3 ms: 0, 1, 2 and 3 are all possible (both ends included), none favoured.
  std::mt19937_64 rng{seed};
  std::vector<int> counts(4, 0);
  for (int i = 0; i < 4000; ++i) {
    backoff b{full_jitter{.base = 3ms, .cap = 3ms}};
    const auto d = b.next_delay(rng).count();
    ASSERT_GE(d, 0);
    ASSERT_LE(d, 3);
    ++counts[static_cast<std::size_t>(d)];
  }
  for (int c : counts) {
    EXPECT_GT(c, 850);  // 1000 expected each; 850 is more than 5 standard deviations away
    EXPECT_LT(c, 1150);
  }
}

TEST(Backoff, EqualJitterWithAnOddEnvelopeStillStaysWithinIt) {
  // 101 ms has no exact half: the delay must stay in [50.5, 101], i.e. [51, 101] in whole ms.
  const equal_jitter p{.base = 101ms, .cap = 101ms};
  std::mt19937_64 rng{seed};
  for (int i = 0; i < 1000; ++i) {
    backoff b{p};
    const auto d = b.next_delay(rng);
    ASSERT_GE(d, 51ms);
    ASSERT_LE(d, 101ms);
  }
}

TEST(Backoff, DecorrelatedJitterFirstDelayIsBetweenBaseAndBaseTimesMultiplier) {
  const decorrelated_jitter p{.base = 100ms, .cap = 5000ms, .multiplier = 3.0};
  std::mt19937_64 rng{seed};
  const auto delays = draw_sequences(p, rng);
  const auto [lo, hi] = std::minmax_element(delays[0].begin(), delays[0].end());
  EXPECT_GE(*lo, 100ms);
  EXPECT_LE(*hi, 300ms);
  EXPECT_LE(*lo, 110ms);
  EXPECT_GE(*hi, 290ms);
}

TEST(Backoff, DecorrelatedJitterGrowsFromThePreviousDelay) {
  const decorrelated_jitter p{.base = 100ms, .cap = 5000ms, .multiplier = 3.0};
  std::mt19937_64 rng{seed};
  bool exceeded_twice_previous = false;
  for (int s = 0; s < sequences; ++s) {
    backoff b{p};
    milliseconds previous = p.base;
    for (int r = 0; r < retries_per_sequence; ++r) {
      const auto d = b.next_delay(rng);
      ASSERT_GE(d, p.base);
      ASSERT_LE(d, std::min(p.cap, previous * 3)) << "retry " << r + 1;
      if (d > previous * 2) exceeded_twice_previous = true;
      previous = d;
    }
  }
  // The bound above is previous * 3, not a fixed envelope: delays do use that room.
  EXPECT_TRUE(exceeded_twice_previous);
}

TEST(Backoff, DecorrelatedJitterReachesTheCapAndStaysBelowIt) {
  const decorrelated_jitter p{.base = 100ms, .cap = 1000ms, .multiplier = 3.0};
  std::mt19937_64 rng{seed};
  backoff b{p};
  int at_cap = 0;
  for (int i = 0; i < 200; ++i) {
    const auto d = b.next_delay(rng);
    ASSERT_GE(d, 100ms);
    ASSERT_LE(d, 1000ms);
    if (d == 1000ms) ++at_cap;
  }
  EXPECT_GT(at_cap, 0);
}

TEST(Backoff, EveryStrategyRespectsACapBelowTheBase) {
  std::mt19937_64 rng{seed};
  for (int i = 0; i < 500; ++i) {
    backoff full{full_jitter{.base = 100ms, .cap = 50ms}};
    backoff equal{equal_jitter{.base = 100ms, .cap = 50ms}};
    backoff decorrelated{decorrelated_jitter{.base = 100ms, .cap = 50ms}};
    for (int r = 0; r < 5; ++r) {
      const auto f = full.next_delay(rng);
      ASSERT_GE(f, 0ms);
      ASSERT_LE(f, 50ms);
      const auto e = equal.next_delay(rng);
      ASSERT_GE(e, 25ms);
      ASSERT_LE(e, 50ms);
      // Decorrelated: [min(base, cap), cap] collapses to the cap.
      ASSERT_EQ(decorrelated.next_delay(rng), 50ms);
    }
  }
}

TEST(Backoff, NonPositiveBaseGivesZero) {
  std::mt19937_64 rng{seed};
  for (auto base : {0ms, -5ms}) {
    backoff full{full_jitter{.base = base}};
    backoff equal{equal_jitter{.base = base}};
    backoff decorrelated{decorrelated_jitter{.base = base}};
    // Past retry 1025, 2^(n-1) is infinite in double and 0 * infinity is NaN: still 0.
    for (int r = 0; r < 2000; ++r) {
      EXPECT_EQ(full.next_delay(rng), 0ms);
      EXPECT_EQ(equal.next_delay(rng), 0ms);
      EXPECT_EQ(decorrelated.next_delay(rng), 0ms);
    }
  }
}

TEST(Backoff, NonPositiveCapGivesZero) {
  std::mt19937_64 rng{seed};
  backoff full{full_jitter{.cap = 0ms}};
  backoff decorrelated{decorrelated_jitter{.cap = -1ms}};
  for (int r = 0; r < 20; ++r) {
    EXPECT_EQ(full.next_delay(rng), 0ms);
    EXPECT_EQ(decorrelated.next_delay(rng), 0ms);
  }
}

TEST(Backoff, MultiplierBelowOneIsTreatedAsOne) {
  std::mt19937_64 rng{seed};
  for (double m : {0.5, 0.0, -2.0, std::numeric_limits<double>::quiet_NaN()}) {
    milliseconds largest_full{0};
    for (int s = 0; s < 500; ++s) {
      backoff full{full_jitter{.base = 200ms, .cap = 5000ms, .multiplier = m}};
      backoff equal{equal_jitter{.base = 200ms, .cap = 5000ms, .multiplier = m}};
      backoff decorrelated{decorrelated_jitter{.base = 200ms, .cap = 5000ms, .multiplier = m}};
      for (int r = 0; r < 10; ++r) {
        const auto f = full.next_delay(rng);
        ASSERT_LE(f, 200ms) << "multiplier " << m;
        largest_full = std::max(largest_full, f);
        const auto e = equal.next_delay(rng);
        ASSERT_GE(e, 100ms) << "multiplier " << m;  // not shrinking towards 0
        ASSERT_LE(e, 200ms) << "multiplier " << m;
        ASSERT_EQ(decorrelated.next_delay(rng), 200ms) << "multiplier " << m;
      }
    }
    EXPECT_GE(largest_full, 190ms) << "multiplier " << m;  // the envelope did not shrink
  }
}

TEST(Backoff, NoOverflowAfterTenThousandRetries) {
  std::mt19937_64 rng{seed};
  const std::vector<backoff_policy> policies{
      full_jitter{.base = 100ms, .cap = 5000ms},
      equal_jitter{.base = 100ms, .cap = 5000ms},
      decorrelated_jitter{.base = 100ms, .cap = 5000ms},
  };
  for (const auto& policy : policies) {
    backoff b{policy};
    for (int i = 0; i < 10000; ++i) {
      const auto d = b.next_delay(rng);
      ASSERT_GE(d, 0ms) << "policy " << policy.index() << " retry " << i + 1;
      ASSERT_LE(d, 5000ms) << "policy " << policy.index() << " retry " << i + 1;
    }
    EXPECT_EQ(b.retries(), 10000u);
    // Equal jitter after 10000 retries still draws from the capped envelope, not from a
    // wrapped or NaN one.
    if (policy.index() == 1) {
      EXPECT_GE(b.next_delay(rng), 2500ms);
    }
  }
}

TEST(Backoff, NoOverflowWithTheLargestCapAndAHugeMultiplier) {
  constexpr auto max = milliseconds::max();
  std::mt19937_64 rng{seed};
  const std::vector<backoff_policy> policies{
      full_jitter{.base = 1000ms, .cap = max, .multiplier = 1e300},
      equal_jitter{.base = 1000ms, .cap = max, .multiplier = 1e300},
      decorrelated_jitter{.base = 1000ms, .cap = max, .multiplier = 1e300},
      full_jitter{.base = max, .cap = max, .multiplier = 2.0},
      decorrelated_jitter{.base = max, .cap = max, .multiplier = 2.0},
  };
  for (const auto& policy : policies) {
    backoff b{policy};
    for (int i = 0; i < 10000; ++i) {
      const auto d = b.next_delay(rng);
      ASSERT_GE(d, 0ms) << "policy " << policy.index() << " retry " << i + 1;
    }
  }
  // Equal jitter from a saturated envelope waits at least half of milliseconds::max().
  backoff equal{equal_jitter{.base = 1000ms, .cap = max, .multiplier = 1e300}};
  (void)equal.next_delay(rng);
  EXPECT_GE(equal.next_delay(rng), max / 2);
}

TEST(Backoff, SameSeedGivesTheSameDelays) {
  const std::vector<backoff_policy> policies{full_jitter{}, equal_jitter{}, decorrelated_jitter{}};
  for (const auto& policy : policies) {
    std::mt19937_64 rng_a{seed};
    std::mt19937_64 rng_b{seed};
    backoff a{policy};
    backoff b{policy};
    for (int i = 0; i < 100; ++i) {
      ASSERT_EQ(a.next_delay(rng_a), b.next_delay(rng_b)) << "policy " << policy.index();
    }
  }
}

TEST(Backoff, DifferentSeedsGiveDifferentDelays) {
  std::mt19937_64 rng_a{seed};
  std::mt19937_64 rng_b{seed + 1};
  backoff a{full_jitter{.base = 1000ms, .cap = 60000ms}};
  backoff b{full_jitter{.base = 1000ms, .cap = 60000ms}};
  std::vector<milliseconds> da, db;
  for (int i = 0; i < 20; ++i) {
    da.push_back(a.next_delay(rng_a));
    db.push_back(b.next_delay(rng_b));
  }
  EXPECT_NE(da, db);
}

}  // namespace
}  // namespace idem
