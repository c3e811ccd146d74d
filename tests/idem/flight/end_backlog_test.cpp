// The client's backlog of ends (src/flight/end_backlog.hpp): how long one end of a timed-out
// transfer takes while the thread is behind, and what a lookup keeps back for the lookups in
// flight.

#include "flight/end_backlog.hpp"

#include <gtest/gtest.h>

namespace idem::detail {
namespace {

using namespace std::chrono_literals;
using clock = end_backlog::clock;

const clock::time_point backlog_t0 = clock::time_point{} + 1h;

TEST(EndBacklog, NothingInFlightKeepsNothingBack) {
  end_backlog b;
  b.on_timed_out(backlog_t0 + 20ms, 20ms);
  b.on_timed_out(backlog_t0 + 21ms, 21ms);
  EXPECT_EQ(b.margin(), 0ms);
}

TEST(EndBacklog, NothingMeasuredKeepsTheLeastALookupTakesPerLookupInFlight) {
  end_backlog b;
  b.lookup_started();
  b.lookup_started();
  EXPECT_EQ(b.margin(), 2 * end_backlog::least_per_lookup);
}

TEST(EndBacklog, EndsFasterThanTheLeastALookupTakesKeepTheLeast) {
  end_backlog b;
  b.on_timed_out(backlog_t0 + 20ms, 20ms);
  b.on_timed_out(backlog_t0 + 20ms + 10us, 20ms + 10us);
  EXPECT_EQ(b.per_end(), 10us);
  b.lookup_started();
  EXPECT_EQ(b.margin(), end_backlog::least_per_lookup);
}

TEST(EndBacklog, ConsecutiveLateEndsMeasureOneEndAndEachLookupInFlightKeepsThatBack) {
  end_backlog b;
  // Three transfers due at backlog_t0, handled 20 ms late, 1 ms apart: the thread was behind all
  // along.
  b.on_timed_out(backlog_t0 + 20ms, 20ms);
  b.on_timed_out(backlog_t0 + 21ms, 21ms);
  EXPECT_EQ(b.per_end(), 1ms);
  b.on_timed_out(backlog_t0 + 22ms, 22ms);
  EXPECT_EQ(b.per_end(), 1ms);
  b.lookup_started();
  b.lookup_started();
  b.lookup_started();
  EXPECT_EQ(b.margin(), 3ms);
  b.lookup_ended();
  EXPECT_EQ(b.margin(), 2ms);
}

TEST(EndBacklog, AnEndDueAfterTheLastLateOneWasHandledMeasuresNothing) {
  end_backlog b;
  b.on_timed_out(backlog_t0 + 20ms, 20ms);
  // Due at backlog_t0 + 1 s, long after the first was handled: the thread may have idled in
  // between.
  b.on_timed_out(backlog_t0 + 1005ms, 5ms);
  EXPECT_EQ(b.per_end(), 0ms);
}

TEST(EndBacklog, AnEndOnTimeEndsTheBacklog) {
  end_backlog b;
  b.on_timed_out(backlog_t0 + 20ms, 20ms);
  b.on_timed_out(backlog_t0 + 30ms, 0ms);  // on time: caught up
  b.on_timed_out(backlog_t0 + 40ms,
                 40ms);  // due at backlog_t0, but the thread caught up in between
  EXPECT_EQ(b.per_end(), 0ms);
}

TEST(EndBacklog, OneSlowEndMovesTheMeasureByAnEighth) {
  end_backlog b;
  b.on_timed_out(backlog_t0 + 20ms, 20ms);
  b.on_timed_out(backlog_t0 + 21ms, 21ms);
  b.on_timed_out(backlog_t0 + 30ms, 30ms);  // 9 ms for this one
  EXPECT_EQ(b.per_end(), 2ms);              // (7 × 1 + 9) / 8
}

TEST(EndBacklog, MoreEndsThanStartsNeverGoBelowZero) {
  end_backlog b;
  b.lookup_ended();
  b.lookup_started();
  EXPECT_EQ(b.lookups(), 1u);
}

}  // namespace
}  // namespace idem::detail
