#include "mock_server/duration.hpp"

#include <gtest/gtest.h>

namespace idem::mock {
namespace {

using namespace std::chrono_literals;

TEST(Duration, EachUnitIsUnderstood) {
  EXPECT_EQ(parse_duration("500ms"), 500ms);
  EXPECT_EQ(parse_duration("30s"), 30s);
  EXPECT_EQ(parse_duration("2m"), 2min);
  EXPECT_EQ(parse_duration("24h"), 24h);
  EXPECT_EQ(parse_duration("2d"), 48h);
}

TEST(Duration, BareNumberMeansSeconds) {
  EXPECT_EQ(parse_duration("30"), 30s);
  EXPECT_EQ(parse_duration("0"), 0ms);
}

TEST(Duration, ZeroIsAllowed) {
  EXPECT_EQ(parse_duration("0s"), 0ms);
  EXPECT_EQ(parse_duration("0ms"), 0ms);
}

TEST(Duration, PartsAreAdded) {
  EXPECT_EQ(parse_duration("1h30m"), 90min);
  EXPECT_EQ(parse_duration("1m500ms"), 60500ms);
  EXPECT_EQ(parse_duration("1d2h3m4s5ms"), 1 * 24h + 2h + 3min + 4s + 5ms);
}

TEST(Duration, MillisecondsAreNotMistakenForMinutes) {
  EXPECT_EQ(parse_duration("5ms"), 5ms);
  EXPECT_EQ(parse_duration("5m5s"), 5min + 5s);
}

TEST(Duration, MalformedTextIsRejected) {
  for (std::string_view text : {"", " ", "s", "ms", "-1s", "-5", "+5s", "1.5s", "5x", "5 s", " 5s",
                                "5s ", "1h30", "5S", "5sec", "1e3", "0x10s", "h1"}) {
    EXPECT_FALSE(parse_duration(text).has_value()) << text;
  }
}

TEST(Duration, LargestRepresentableValueIsAccepted) {
  EXPECT_EQ(parse_duration("9223372036854775807ms"), std::chrono::milliseconds::max());
}

TEST(Duration, OverflowIsRejected) {
  EXPECT_FALSE(parse_duration("9223372036854775808ms").has_value());     // digits overflow
  EXPECT_FALSE(parse_duration("9223372036854776s").has_value());         // unit multiplication
  EXPECT_FALSE(parse_duration("9223372036854776").has_value());          // bare seconds
  EXPECT_FALSE(parse_duration("9223372036854775807ms1ms").has_value());  // sum of parts
  EXPECT_FALSE(parse_duration("99999999999999999999999h").has_value());
}

}  // namespace
}  // namespace idem::mock
