#include "policy/retry_after.hpp"

#include <array>
#include <chrono>
#include <cstdint>
#include <tuple>

namespace idem {
namespace {

using std::chrono::milliseconds;
using std::chrono::seconds;
using std::chrono::system_clock;

namespace cal = std::chrono;

// The calendar is C++20's <chrono> (proleptic Gregorian, no time zone, locale or C library such
// as timegm or strptime involved). Days since 1970-01-01 of a valid date.
constexpr std::int64_t days_since_epoch(const cal::year_month_day& date) {
  return cal::sys_days{date}.time_since_epoch().count();
}

// The compile-time checks pin the calendar to known dates, so a slip cannot hide.
static_assert(days_since_epoch(cal::year{1970} / 1 / 1) == 0);
static_assert(days_since_epoch(cal::year{2000} / 3 / 1) == 11'017);
static_assert(days_since_epoch(cal::year{1969} / 12 / 31) == -1);
static_assert(cal::year_month_day{cal::sys_days{cal::days{11'016}}} == cal::year{2000} / 2 / 29);

constexpr std::array<std::string_view, 7> short_day_names{"Mon", "Tue", "Wed", "Thu",
                                                          "Fri", "Sat", "Sun"};
constexpr std::array<std::string_view, 7> long_day_names{
    "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"};
constexpr std::array<std::string_view, 12> month_names{"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                                       "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};

// A cursor over the text: each step consumes exactly what the grammar names or fails.
class reader {
 public:
  explicit reader(std::string_view text) : rest_(text) {}

  bool literal(std::string_view lit) {
    if (!rest_.starts_with(lit)) return false;
    rest_.remove_prefix(lit.size());
    return true;
  }

  // Exactly n ASCII digits (no sign, no spaces).
  std::optional<unsigned> digits(std::size_t n) {
    if (rest_.size() < n) return std::nullopt;
    unsigned value = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const char c = rest_[i];
      if (c < '0' || c > '9') return std::nullopt;
      value = value * 10 + static_cast<unsigned>(c - '0');
    }
    rest_.remove_prefix(n);
    return value;
  }

  // The 1-based index of the name that comes next (names are case-sensitive, %s in RFC 9110).
  template <std::size_t N>
  std::optional<unsigned> one_of(const std::array<std::string_view, N>& names) {
    for (std::size_t i = 0; i < N; ++i) {
      if (literal(names[i])) return static_cast<unsigned>(i + 1);
    }
    return std::nullopt;
  }

  [[nodiscard]] bool at_end() const { return rest_.empty(); }

 private:
  std::string_view rest_;
};

// The fields of an HTTP-date as written; `year` has two digits when `two_digit_year`.
struct date_fields {
  std::int64_t year = 0;
  bool two_digit_year = false;
  unsigned month = 0, day = 0, hour = 0, minute = 0, second = 0;
};

// time-of-day = hour ":" minute ":" second; 00:00:00 - 23:59:60 (a leap second is allowed).
bool read_time_of_day(reader& r, date_fields& f) {
  auto h = r.digits(2);
  if (!h || !r.literal(":")) return false;
  auto m = r.digits(2);
  if (!m || !r.literal(":")) return false;
  auto s = r.digits(2);
  if (!s || *h > 23 || *m > 59 || *s > 60) return false;
  f.hour = *h;
  f.minute = *m;
  f.second = *s;
  return true;
}

// IMF-fixdate = day-name "," SP day SP month SP year SP time-of-day SP "GMT"
std::optional<date_fields> read_imf_fixdate(std::string_view text) {
  reader r{text};
  date_fields f;
  if (!r.one_of(short_day_names) || !r.literal(", ")) return std::nullopt;
  auto day = r.digits(2);
  if (!day || !r.literal(" ")) return std::nullopt;
  auto month = r.one_of(month_names);
  if (!month || !r.literal(" ")) return std::nullopt;
  auto year = r.digits(4);
  if (!year || !r.literal(" ") || !read_time_of_day(r, f)) return std::nullopt;
  if (!r.literal(" GMT") || !r.at_end()) return std::nullopt;
  f.day = *day;
  f.month = *month;
  f.year = *year;
  return f;
}

// rfc850-date = day-name-l "," SP day "-" month "-" 2DIGIT SP time-of-day SP "GMT"
std::optional<date_fields> read_rfc850_date(std::string_view text) {
  reader r{text};
  date_fields f;
  if (!r.one_of(long_day_names) || !r.literal(", ")) return std::nullopt;
  auto day = r.digits(2);
  if (!day || !r.literal("-")) return std::nullopt;
  auto month = r.one_of(month_names);
  if (!month || !r.literal("-")) return std::nullopt;
  auto year = r.digits(2);
  if (!year || !r.literal(" ") || !read_time_of_day(r, f)) return std::nullopt;
  if (!r.literal(" GMT") || !r.at_end()) return std::nullopt;
  f.day = *day;
  f.month = *month;
  f.year = *year;
  f.two_digit_year = true;
  return f;
}

// asctime-date = day-name SP month SP ( 2DIGIT / ( SP DIGIT ) ) SP time-of-day SP year
std::optional<date_fields> read_asctime_date(std::string_view text) {
  reader r{text};
  date_fields f;
  if (!r.one_of(short_day_names) || !r.literal(" ")) return std::nullopt;
  auto month = r.one_of(month_names);
  if (!month || !r.literal(" ")) return std::nullopt;
  auto day = r.literal(" ") ? r.digits(1) : r.digits(2);
  if (!day || !r.literal(" ") || !read_time_of_day(r, f) || !r.literal(" ")) return std::nullopt;
  auto year = r.digits(4);
  if (!year || !r.at_end()) return std::nullopt;
  f.day = *day;
  f.month = *month;
  f.year = *year;
  return f;
}

// RFC 9110 section 5.6.7: a two-digit year that appears to be more than 50 years in the future
// is the most recent past year with those digits. So the year is the latest one ending in those
// digits whose date is not after the reference moved 50 calendar years on; that also carries
// the window across a century (reference 2099, "00" -> 2100).
std::int64_t resolve_two_digit_year(const date_fields& f, std::int64_t reference_seconds) {
  const cal::sys_seconds reference{seconds{reference_seconds}};
  const auto ref_day = cal::floor<cal::days>(reference);
  const std::int64_t ref_time_of_day = (reference - ref_day).count();
  const cal::year_month_day ref{ref_day};
  const std::int64_t ref_year = static_cast<int>(ref.year());
  const auto limit = std::tuple{ref_year + 50, static_cast<unsigned>(ref.month()),
                                static_cast<unsigned>(ref.day()), ref_time_of_day};
  const std::int64_t time_of_day = f.hour * 3600 + f.minute * 60 + f.second;
  const std::int64_t century = (ref_year >= 0 ? ref_year : ref_year - 99) / 100 * 100;
  for (std::int64_t year : {century + 100 + f.year, century + f.year}) {
    if (std::tuple{year, f.month, f.day, time_of_day} <= limit) return year;
  }
  return century - 100 + f.year;  // always at least 50 years before the limit
}

// Seconds since the Unix epoch of an HTTP-date, in 64 bits (every 4-digit year fits).
std::optional<std::int64_t> http_date_seconds(std::string_view text,
                                              std::int64_t reference_seconds) {
  auto f = read_imf_fixdate(text);
  if (!f) f = read_rfc850_date(text);
  if (!f) f = read_asctime_date(text);
  if (!f) return std::nullopt;
  if (f->two_digit_year) f->year = resolve_two_digit_year(*f, reference_seconds);
  const cal::year_month_day date{cal::year{static_cast<int>(f->year)}, cal::month{f->month},
                                 cal::day{f->day}};
  if (!date.ok()) return std::nullopt;  // e.g. 31 Apr, or 29 Feb of a common year
  return cal::sys_seconds{cal::sys_days{date}}.time_since_epoch().count() + f->hour * 3600 +
         f->minute * 60 + f->second;
}

std::int64_t seconds_since_epoch(system_clock::time_point t) {
  return std::chrono::floor<seconds>(t.time_since_epoch()).count();
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

constexpr std::int64_t max_wait_ms = milliseconds{max_retry_after}.count();

}  // namespace

std::optional<system_clock::time_point> parse_http_date(std::string_view text,
                                                        system_clock::time_point reference) {
  auto secs = http_date_seconds(text, seconds_since_epoch(reference));
  if (!secs) return std::nullopt;
  // system_clock counts nanoseconds on common platforms: about 1677 to 2262, not 0000 to 9999.
  const auto lo = std::chrono::ceil<seconds>(system_clock::duration::min()).count();
  const auto hi = std::chrono::floor<seconds>(system_clock::duration::max()).count();
  if (*secs < lo || *secs > hi) return std::nullopt;
  return system_clock::time_point{
      std::chrono::duration_cast<system_clock::duration>(seconds{*secs})};
}

std::optional<system_clock::time_point> parse_http_date(std::string_view text) {
  return parse_http_date(text, system_clock::now());
}

milliseconds parse_retry_after(std::string_view value, std::optional<std::string_view> date_header,
                               system_clock::time_point received_at) {
  value = trim_ows(value);
  if (value.empty()) return milliseconds{0};

  if (value.find_first_not_of("0123456789") == std::string_view::npos) {
    // delta-seconds = 1*DIGIT; stop accumulating once past the ceiling, so any length is safe.
    std::int64_t secs = 0;
    for (char c : value) {
      secs = secs * 10 + (c - '0');
      if (secs >= max_retry_after.count()) return max_retry_after;
    }
    return seconds{secs};
  }

  const std::int64_t reference = seconds_since_epoch(received_at);
  auto target = http_date_seconds(value, reference);
  if (!target) return milliseconds{0};  // a negative number or garbage

  // Measured against the server's own Date, the wait is immune to skew between the two clocks.
  std::int64_t wait_ms = 0;
  std::optional<std::int64_t> server_now;
  if (date_header) server_now = http_date_seconds(trim_ows(*date_header), reference);
  if (server_now) {
    wait_ms = (*target - *server_now) * 1000;
  } else {
    // Rounding the arrival down rounds the wait up: never retry before the date.
    wait_ms =
        *target * 1000 - std::chrono::floor<milliseconds>(received_at.time_since_epoch()).count();
  }
  if (wait_ms <= 0) return milliseconds{0};
  return milliseconds{wait_ms < max_wait_ms ? wait_ms : max_wait_ms};
}

}  // namespace idem
