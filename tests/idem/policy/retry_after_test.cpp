#include "policy/retry_after.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace idem {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::system_clock;

// Instants as seconds since the Unix epoch, computed independently (Python's calendar.timegm).
system_clock::time_point at(std::int64_t unix_seconds) {
  return system_clock::time_point{seconds{unix_seconds}};
}

constexpr std::int64_t rfc_example = 784111777;  // Sun, 06 Nov 1994 08:49:37 GMT
constexpr std::int64_t jun_1_2025 = 1748736000;  // Sun, 01 Jun 2025 00:00:00 GMT
constexpr std::int64_t jan_1_2030 = 1893456000;  // far from 1994: a badly skewed local clock

// ---------------------------------------------------------------------------------------------
// delta-seconds

TEST(RetryAfter, DeltaSecondsAreThatManySeconds) {
  EXPECT_EQ(parse_retry_after("120", std::nullopt, at(jun_1_2025)), 120s);
  EXPECT_EQ(parse_retry_after("1", std::nullopt, at(jun_1_2025)), 1s);
  EXPECT_EQ(parse_retry_after("0", std::nullopt, at(jun_1_2025)), 0s);
  EXPECT_EQ(parse_retry_after("007", std::nullopt, at(jun_1_2025)), 7s);
}

TEST(RetryAfter, SurroundingWhitespaceIsIgnored) {
  EXPECT_EQ(parse_retry_after(" 5\t", std::nullopt, at(jun_1_2025)), 5s);
  EXPECT_EQ(parse_retry_after("  Sun, 06 Nov 1994 08:50:07 GMT ", " Sun, 06 Nov 1994 08:49:37 GMT",
                              at(jan_1_2030)),
            30s);
}

TEST(RetryAfter, DeltaSecondsDoNotDependOnTheDateHeaderOrTheClock) {
  EXPECT_EQ(parse_retry_after("120", "Sun, 06 Nov 1994 08:49:37 GMT", at(jan_1_2030)), 120s);
  EXPECT_EQ(parse_retry_after("120", std::nullopt, system_clock::time_point::min()), 120s);
}

TEST(RetryAfter, NegativeDeltaSecondsCountAsZero) {
  for (std::string_view v : {"-1", "-0", "-120", "-99999999999999999999999"}) {
    EXPECT_EQ(parse_retry_after(v, std::nullopt, at(jun_1_2025)), 0ms) << v;
  }
}

TEST(RetryAfter, GarbageCountsAsZero) {
  // Measured from 1970, any of these that were wrongly read as a 1994 date or as a number would
  // come out far above zero. "\xd9\xa3" is the Arabic-Indic digit three: not an ASCII DIGIT.
  for (std::string_view v :
       {"", "   ", "abc", "1.5", "+5", "5s", "12abc", "0x10", "1e3", "5 5", "120,", "\xd9\xa3",
        "Sun, 06 Nov 1994 08:49:37 UTC", "Sun, 06 Nov 1994", "Sun, 31 Feb 1994 08:49:37 GMT",
        "sun, 06 nov 1994 08:49:37 gmt", "tomorrow"}) {
    EXPECT_EQ(parse_retry_after(v, std::nullopt, at(0)), 0ms) << v;
  }
}

TEST(RetryAfter, HugeDeltaSecondsSaturateWithoutOverflow) {
  EXPECT_EQ(max_retry_after, seconds{std::int64_t{1} << 31});
  EXPECT_EQ(parse_retry_after("2147483647", std::nullopt, at(jun_1_2025)), 2147483647s);
  for (std::string_view v : {"2147483648", "4294967296", "9223372036854775807",
                             "9223372036854775808", "18446744073709551616"}) {
    EXPECT_EQ(parse_retry_after(v, std::nullopt, at(jun_1_2025)), max_retry_after) << v;
  }
  const std::string hundred_nines(100, '9');
  EXPECT_EQ(parse_retry_after(hundred_nines, std::nullopt, at(jun_1_2025)), max_retry_after);
}

// ---------------------------------------------------------------------------------------------
// HTTP-date values: measured against the response's Date header

TEST(RetryAfter, ImfFixdateIsMeasuredAgainstTheDateHeader) {
  // The local clock is years off; only the server's own Date gives the intended 30 seconds.
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:50:07 GMT", "Sun, 06 Nov 1994 08:49:37 GMT",
                              at(jan_1_2030)),
            30s);
}

TEST(RetryAfter, Rfc850DateIsMeasuredAgainstTheDateHeader) {
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:50:07 GMT", "Sunday, 06-Nov-94 08:49:37 GMT",
                              at(rfc_example + 3600)),
            30s);
}

TEST(RetryAfter, AsctimeDateIsMeasuredAgainstTheDateHeader) {
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:50:07 1994", "Sun Nov  6 08:49:37 1994",
                              at(rfc_example - 3600)),
            30s);
}

TEST(RetryAfter, DateHeaderInAnyFormIsTheReferenceForAnyForm) {
  const auto local = at(jan_1_2030);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:50:07 GMT", "Sun Nov  6 08:49:37 1994", local),
            30s);
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:50:07 1994", "Sunday, 06-Nov-94 08:49:37 GMT", local),
            30s);
  EXPECT_EQ(
      parse_retry_after("Sunday, 06-Nov-94 08:50:07 GMT", "Sun, 06 Nov 1994 08:49:37 GMT", local),
      30s);
}

TEST(RetryAfter, MissingDateHeaderMeasuresFromReceivedAt) {
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", std::nullopt, at(rfc_example - 45)),
            45s);
  EXPECT_EQ(parse_retry_after("Sunday, 06-Nov-94 08:49:37 GMT", std::nullopt, at(rfc_example - 45)),
            45s);
  EXPECT_EQ(parse_retry_after("Sun Nov  6 08:49:37 1994", std::nullopt, at(rfc_example - 45)), 45s);
}

TEST(RetryAfter, InvalidDateHeaderMeasuresFromReceivedAt) {
  for (std::string_view date : {"", "yesterday", "Sun, 06 Nov 1994 08:49:37", "784111777",
                                "Sun, 06 Nov 1994 25:00:00 GMT"}) {
    EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", date, at(rfc_example - 45)), 45s)
        << date;
  }
}

TEST(RetryAfter, WaitFromReceivedAtRoundsUpSoTheRetryIsNeverEarly) {
  const auto target = at(rfc_example);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", std::nullopt,
                              target - 1234ms - std::chrono::microseconds{500}),
            1235ms);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", std::nullopt,
                              target - std::chrono::microseconds{400}),
            1ms);
}

TEST(RetryAfter, DateInThePastCountsAsZero) {
  // Against the Date header...
  EXPECT_EQ(
      parse_retry_after("Sun, 06 Nov 1994 08:49:07 GMT", "Sun, 06 Nov 1994 08:49:37 GMT", at(0)),
      0ms);
  // ...even when the local clock, which a Date header overrides, would call it future.
  EXPECT_EQ(
      parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", "Sun, 06 Nov 1994 08:49:37 GMT", at(0)),
      0ms);
  // Against the arrival time when there is no Date.
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", std::nullopt, at(rfc_example + 1)),
            0ms);
  EXPECT_EQ(parse_retry_after("Sun, 06 Nov 1994 08:49:37 GMT", std::nullopt, at(rfc_example)), 0ms);
}

TEST(RetryAfter, FarFutureDateSaturatesWithoutOverflow) {
  constexpr std::string_view end_of_time = "Fri, 31 Dec 9999 23:59:59 GMT";
  EXPECT_EQ(parse_retry_after(end_of_time, "Sun, 06 Nov 1994 08:49:37 GMT", at(0)),
            max_retry_after);
  EXPECT_EQ(parse_retry_after(end_of_time, "Mon, 01 Jan 0001 00:00:00 GMT", at(0)),
            max_retry_after);
  EXPECT_EQ(parse_retry_after(end_of_time, std::nullopt, system_clock::time_point::min()),
            max_retry_after);
  // Against the latest arrival the clock can hold, the date is ahead where the clock ends before
  // the year 9999 (libstdc++ counts nanoseconds: 2262) and long past where it ends after it
  // (libc++, Android's and Apple's, counts microseconds: year 294,247).
  const auto end_of_time_seconds = seconds{253'402'300'799};  // 9999-12-31 23:59:59
  const bool clock_ends_before =
      std::chrono::floor<seconds>(system_clock::time_point::max().time_since_epoch()) <
      end_of_time_seconds;
  EXPECT_EQ(parse_retry_after(end_of_time, std::nullopt, system_clock::time_point::max()),
            clock_ends_before ? milliseconds{max_retry_after} : 0ms);
  // An early date against the latest representable arrival is simply in the past.
  EXPECT_EQ(parse_retry_after("Mon, 01 Jan 0001 00:00:00 GMT", std::nullopt,
                              system_clock::time_point::max()),
            0ms);
}

TEST(RetryAfter, Rfc850YearIsReadRelativeToTheArrivalTime) {
  // 01-Jan-75 seen in mid-2025 is 2075 (under 50 years ahead), not 1975.
  EXPECT_EQ(parse_retry_after("Tuesday, 01-Jan-75 00:00:00 GMT", std::nullopt, at(jun_1_2025)),
            seconds{3313526400 - jun_1_2025});
}

// ---------------------------------------------------------------------------------------------
// parse_http_date

std::optional<std::int64_t> unix_seconds(std::string_view text,
                                         system_clock::time_point reference = at(jun_1_2025)) {
  auto t = parse_http_date(text, reference);
  if (!t) return std::nullopt;
  return std::chrono::duration_cast<seconds>(t->time_since_epoch()).count();
}

TEST(HttpDate, ImfFixdateGivesTheInstant) {
  EXPECT_EQ(unix_seconds("Sun, 06 Nov 1994 08:49:37 GMT"), rfc_example);
  EXPECT_EQ(unix_seconds("Thu, 29 Feb 2024 12:00:00 GMT"), 1709208000);
  EXPECT_EQ(unix_seconds("Sun, 01 Jun 2025 00:00:00 GMT"), jun_1_2025);
}

TEST(HttpDate, AllThreeFormsGiveTheSameInstant) {
  EXPECT_EQ(unix_seconds("Sun, 06 Nov 1994 08:49:37 GMT"), rfc_example);
  EXPECT_EQ(unix_seconds("Sunday, 06-Nov-94 08:49:37 GMT"), rfc_example);
  EXPECT_EQ(unix_seconds("Sun Nov  6 08:49:37 1994"), rfc_example);
}

TEST(HttpDate, OneArgumentFormAgreesForFourDigitYears) {
  EXPECT_EQ(parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT"), at(rfc_example));
  EXPECT_EQ(parse_http_date("Sun Nov  6 08:49:37 1994"), at(rfc_example));
  EXPECT_EQ(parse_http_date("garbage"), std::nullopt);
}

TEST(HttpDate, UnixEpochAndTheSecondBeforeIt) {
  EXPECT_EQ(unix_seconds("Thu, 01 Jan 1970 00:00:00 GMT"), 0);
  EXPECT_EQ(unix_seconds("Wed, 31 Dec 1969 23:59:59 GMT"), -1);
}

TEST(HttpDate, LeapYearsFollowTheGregorianRules) {
  EXPECT_EQ(unix_seconds("Thu, 29 Feb 2024 00:00:00 GMT"), 1709164800);  // divisible by 4
  EXPECT_EQ(unix_seconds("Tue, 29 Feb 2000 00:00:00 GMT"), 951782400);   // by 400
  EXPECT_EQ(unix_seconds("Wed, 01 Mar 2023 00:00:00 GMT"), 1677628800);
  EXPECT_EQ(unix_seconds("Wed, 29 Feb 2023 00:00:00 GMT"), std::nullopt);  // not by 4
  EXPECT_EQ(unix_seconds("Thu, 29 Feb 1900 00:00:00 GMT"), std::nullopt);  // by 100, not 400
  EXPECT_EQ(unix_seconds("Mon, 29 Feb 2100 00:00:00 GMT"), std::nullopt);
}

TEST(HttpDate, DaysPerMonthAreChecked) {
  EXPECT_EQ(unix_seconds("Sat, 30 Apr 1994 00:00:00 GMT"), 767664000);
  EXPECT_EQ(unix_seconds("Sat, 31 Dec 1994 00:00:00 GMT"), 788832000);
  for (std::string_view text :
       {"Sun, 31 Apr 1994 00:00:00 GMT", "Sun, 31 Jun 1994 00:00:00 GMT",
        "Sun, 31 Sep 1994 00:00:00 GMT", "Sun, 31 Nov 1994 00:00:00 GMT",
        "Sun, 32 Jan 1994 00:00:00 GMT", "Sun, 00 Jan 1994 00:00:00 GMT",
        "Sunday, 31-Apr-94 00:00:00 GMT", "Sun Apr 31 00:00:00 1994", "Sun Jan  0 00:00:00 1994"}) {
    EXPECT_EQ(unix_seconds(text), std::nullopt) << text;
  }
}

TEST(HttpDate, LeapSecondIsTheNextMinutesFirstSecond) {
  EXPECT_EQ(unix_seconds("Wed, 31 Dec 2008 23:59:60 GMT"), 1230768000);
  EXPECT_EQ(unix_seconds("Thu, 01 Jan 2009 00:00:00 GMT"), 1230768000);
}

TEST(HttpDate, TimeOfDayOutOfRangeIsRejected) {
  for (std::string_view text : {"Sun, 06 Nov 1994 24:00:00 GMT", "Sun, 06 Nov 1994 23:60:00 GMT",
                                "Sun, 06 Nov 1994 23:59:61 GMT", "Sun, 06 Nov 1994 99:99:99 GMT"}) {
    EXPECT_EQ(unix_seconds(text), std::nullopt) << text;
  }
}

TEST(HttpDate, MalformedTextIsRejected) {
  for (std::string_view text : {
           "",
           "Sun, 06 Nov 1994 08:49:37",        // no zone
           "Sun, 06 Nov 1994 08:49:37 UTC",    // only GMT is allowed
           "Sun, 06 Nov 1994 08:49:37 gmt",    // case-sensitive
           "sun, 06 Nov 1994 08:49:37 GMT",    // case-sensitive day name
           "Sun, 06 nov 1994 08:49:37 GMT",    // case-sensitive month name
           "Sun, 06 Nov 1994 08:49:37 GMT x",  // trailing text
           "Sun 06 Nov 1994 08:49:37 GMT",     // missing comma
           "Sun,  06 Nov 1994 08:49:37 GMT",   // double space
           "Sun, 6 Nov 1994 08:49:37 GMT",     // one-digit day
           "Sun, 06 Nov 94 08:49:37 GMT",      // two-digit year in IMF-fixdate
           "Sun, 06 November 1994 08:49:37 GMT",
           "Sun, 06 Nov 1994 8:49:37 GMT",
           "Sun, 06 Nov 1994 08:49 GMT",
           "Sun, 06 Nov 1994 08-49-37 GMT",
           "Sun, 06 Nov 1994 0849:37 GMT",
           "Sun, 06 Nov 1994 08:4937 GMT",
           "Sun, 06 Nov -994 08:49:37 GMT",
           "Sun, 06 Foo 1994 08:49:37 GMT",
           "Xyz, 06 Nov 1994 08:49:37 GMT",
           "Sunday, 06 Nov 1994 08:49:37 GMT",  // long day name in IMF-fixdate
           "Sun, 06-Nov-94 08:49:37 GMT",       // short day name in RFC 850
           "Sunday, 06-Nov-1994 08:49:37 GMT",  // four-digit year in RFC 850
           "Sunday, 06-Nov-94 08:49:37",
           "Sun Nov 6 08:49:37 1994",  // asctime pads a one-digit day with a space
           "Sun Nov  6 08:49:37 94",   // two-digit year in asctime
           "Sun Nov  6 08:49:37 1994 GMT",
           "Sun, Nov  6 08:49:37 1994",
           "2024-02-29T12:00:00Z",  // ISO 8601 is not an HTTP-date
       }) {
    EXPECT_EQ(unix_seconds(text), std::nullopt) << text;
  }
}

TEST(HttpDate, AsctimeAcceptsASpacePaddedOrTwoDigitDay) {
  EXPECT_EQ(unix_seconds("Sun Nov  6 08:49:37 1994"), rfc_example);
  EXPECT_EQ(unix_seconds("Sun Nov 06 08:49:37 1994"), rfc_example);
  EXPECT_EQ(unix_seconds("Wed Nov 16 00:00:00 1994"), 784944000);
}

TEST(HttpDate, DayNameIsNotCheckedAgainstTheDate) {
  // A server that gets the weekday wrong still means the date; refusing it would turn its
  // Retry-After into "retry now".
  EXPECT_EQ(unix_seconds("Mon, 06 Nov 1994 08:49:37 GMT"), rfc_example);
}

TEST(HttpDate, Rfc850YearWithinFiftyYearsAheadIsThisCentury) {
  EXPECT_EQ(unix_seconds("Sunday, 06-Nov-94 08:49:37 GMT", at(jun_1_2025)), rfc_example);
  EXPECT_EQ(unix_seconds("Sunday, 01-Jun-25 00:00:00 GMT", at(jun_1_2025)), jun_1_2025);
  EXPECT_EQ(unix_seconds("Tuesday, 01-Jan-75 00:00:00 GMT", at(jun_1_2025)), 3313526400);
}

TEST(HttpDate, Rfc850YearMoreThanFiftyYearsAheadIsThePastCentury) {
  // 31-Dec-75 would be 2075-12-31, more than 50 years after 2025-06-01: so it is 1975.
  EXPECT_EQ(unix_seconds("Wednesday, 31-Dec-75 00:00:00 GMT", at(jun_1_2025)), 189216000);
  EXPECT_EQ(unix_seconds("Wednesday, 01-Jan-99 00:00:00 GMT", at(jun_1_2025)), 915148800);
}

TEST(HttpDate, Rfc850FiftyYearBoundaryIsExact) {
  // Exactly 50 years ahead is not "more than 50 years in the future"; one second later is.
  EXPECT_EQ(unix_seconds("Saturday, 01-Jun-75 00:00:00 GMT", at(jun_1_2025)), 3326572800);
  EXPECT_EQ(unix_seconds("Sunday, 01-Jun-75 00:00:01 GMT", at(jun_1_2025)), 170812801);
}

TEST(HttpDate, Rfc850WindowCrossesTheCentury) {
  const auto dec_31_2099 = at(4102358400);
  EXPECT_EQ(unix_seconds("Friday, 01-Jan-00 00:00:00 GMT", dec_31_2099), 4102444800);    // 2100
  EXPECT_EQ(unix_seconds("Thursday, 01-Jan-99 00:00:00 GMT", dec_31_2099), 4070908800);  // 2099
}

TEST(HttpDate, DatesSystemClockCannotHoldAreRejectedNotWrapped) {
  constexpr std::int64_t end_of_9999 = 253402300799;  // Fri, 31 Dec 9999 23:59:59 GMT
  const auto representable =
      std::chrono::floor<seconds>(system_clock::duration::max()).count() >= end_of_9999;
  const auto parsed = unix_seconds("Fri, 31 Dec 9999 23:59:59 GMT");
  if (representable) {
    EXPECT_EQ(parsed, end_of_9999);
  } else {
    EXPECT_EQ(parsed, std::nullopt);
  }
}

}  // namespace
}  // namespace idem
