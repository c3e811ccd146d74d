#pragma once
// RFC 9110 `Retry-After`: delta-seconds or an HTTP-date.

#include <chrono>
#include <optional>
#include <string_view>

namespace idem {

/// The longest wait a `Retry-After` yields: 2^31 seconds (about 68 years), the value RFC 9111
/// section 1.2.2 prescribes for a delta-seconds too large to represent. Far beyond any deadline,
/// yet small enough to add to a present-day time point, even on a nanosecond clock.
inline constexpr std::chrono::seconds max_retry_after{2147483648LL};

/// The wait a `Retry-After` value asks for.
/// - delta-seconds (`120`): that many seconds; very large values saturate at `max_retry_after`
///   (no overflow).
/// - HTTP-date in any of RFC 9110's three forms (IMF-fixdate `Sun, 06 Nov 1994 08:49:37 GMT`,
///   RFC 850 `Sunday, 06-Nov-94 08:49:37 GMT`, asctime `Sun Nov  6 08:49:37 1994`): the time from
///   the response's own `Date` header (`date_header`, same forms) to that date; when the
///   response has no valid Date, from `received_at` (the local wall clock when it arrived).
/// - a negative number, a date in the past, or garbage: 0 (retry without extra wait).
/// A date yields the time to it rounded up to whole milliseconds, at most `max_retry_after`.
/// RFC 850 two-digit years are read relative to `received_at` (see the two-argument
/// `parse_http_date`). The caller trims the result to the intent's deadline.
[[nodiscard]] std::chrono::milliseconds parse_retry_after(
    std::string_view value, std::optional<std::string_view> date_header,
    std::chrono::system_clock::time_point received_at);

/// Parses an HTTP-date (the three RFC 9110 forms, exactly as RFC 9110 section 5.6.7 spells
/// them; the day name is checked to be a day name but not against the date). nullopt for
/// anything else, including a date that system_clock::time_point cannot represent.
/// An RFC 850 two-digit year is read as the year with those last two digits that is not more than
/// 50 years after `reference` (RFC 9110: a date that appears to be more than 50 years in the
/// future is in the past century). Pure: the reference is passed in.
[[nodiscard]] std::optional<std::chrono::system_clock::time_point> parse_http_date(
    std::string_view text, std::chrono::system_clock::time_point reference);

/// As above with `reference` = system_clock::now(): reads the wall clock (only an RFC 850 date
/// depends on it). Prefer the two-argument form where the time is already known.
[[nodiscard]] std::optional<std::chrono::system_clock::time_point> parse_http_date(
    std::string_view text);

}  // namespace idem
