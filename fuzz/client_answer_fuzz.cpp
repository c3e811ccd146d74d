// The SDK's reading of a complete answer (status, header fields, body) as the transport hands it
// over: every server profile's classification with problem+json and Stripe error bodies of any
// shape, the replay marker, `Retry-After` against the answer's `Date`, and the HTTP-date forms
// against any reference time (fuzz/client_answer_checks.hpp has the properties).
//
// Input, as text: "STATUS [SECONDS]" (the status, and the local time the answer arrived as
// seconds from 1970; default 1750000000), then "Name: value" lines up to an empty line, then the
// body.

#include <charconv>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/client_answer_checks.hpp"
#include "fuzz/input_lines.hpp"
#include "idem/transport.hpp"
#include "policy/retry_after.hpp"

namespace {

template <class Int>
Int number_or(std::string_view word, Int fallback) {
  Int value{};
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  return error == std::errc{} && end == word.data() + word.size() ? value : fallback;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string_view input = idem::fuzz::as_text(data, size);
  std::string_view first = idem::fuzz::next_line(input);
  idem::http_response r;
  r.status = number_or(idem::fuzz::next_word(first), 0);
  // Dates are read relative to this: any time a system_clock can hold in seconds.
  const auto received_at = std::chrono::system_clock::time_point{} +
                           std::chrono::seconds(number_or<std::int32_t>(first, 1'750'000'000));
  while (!input.empty()) {
    const std::string_view line = idem::fuzz::next_line(input);
    if (line.empty()) break;
    const auto colon = line.find(':');
    std::string_view value = colon == std::string_view::npos ? "" : line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ')
      value.remove_prefix(1);
    r.headers.emplace_back(std::string(line.substr(0, colon)), std::string(value));
  }
  r.body = std::string(input);

  idem::fuzz::check_answer(r, received_at);
  // Every header value as a date, and as a Retry-After without a usable Date.
  for (const auto& [name, value] : r.headers) {
    (void)idem::parse_http_date(value, received_at);
    const auto wait = idem::parse_retry_after(value, std::nullopt, received_at);
    IDEM_FUZZ_CHECK(wait >= std::chrono::milliseconds::zero() && wait <= idem::max_retry_after);
  }
  return 0;
}
