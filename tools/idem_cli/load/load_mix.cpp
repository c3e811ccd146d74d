#include "idem_cli/load/load_mix.hpp"

#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <set>

namespace idem::cli {
namespace {

// The mix's names, in the order to_string writes them.
struct mix_field {
  std::string_view name;
  double load_mix::*value;
};
constexpr std::array<mix_field, 4> fields{{{"pay", &load_mix::pay},
                                           {"cancel", &load_mix::cancel},
                                           {"double-pay", &load_mix::double_pay},
                                           {"double-order", &load_mix::double_order}}};

// splitmix64's finaliser: a well-mixed 64-bit value from any input.
std::uint64_t splitmix64(std::uint64_t x) noexcept {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// A uniform draw in [0, 1) for choice `which` of order `n`.
double draw(std::uint64_t seed, std::size_t n, std::uint64_t which) noexcept {
  const std::uint64_t x = splitmix64(splitmix64(seed) ^ splitmix64(n * 8 + which));
  return static_cast<double>(x >> 11) * 0x1.0p-53;
}

}  // namespace

// Not std::from_chars for double: libc++ (Android's NDK, Apple's) has none before LLVM 20
// (deleted in 16; found by CI's libc++ build); not strtod, which reads the C locale's decimal
// point. The numerator and 10^n are exact doubles, so their quotient is the nearest double to
// the decimal, as from_chars gives it.
std::optional<double> parse_share(std::string_view text) {
  const auto point = text.find('.');
  const std::string_view whole = text.substr(0, point);
  const std::string_view fraction =
      point == std::string_view::npos ? std::string_view{} : text.substr(point + 1);
  if ((whole.empty() && fraction.empty()) || fraction.size() > 15) return std::nullopt;
  const auto read_digits = [](std::string_view digits, std::uint64_t& value) {
    const char* last = digits.data() + digits.size();
    const auto [end, ec] = std::from_chars(digits.data(), last, value);
    return digits.empty() || (ec == std::errc{} && end == last);
  };
  std::uint64_t whole_value = 0;
  std::uint64_t numerator = 0;
  if (!read_digits(whole, whole_value) || !read_digits(fraction, numerator)) return std::nullopt;
  if (whole_value > 1 || (whole_value == 1 && numerator != 0)) return std::nullopt;
  std::uint64_t denominator = 1;
  for (std::size_t i = 0; i < fraction.size(); ++i)
    denominator *= 10;
  return static_cast<double>(whole_value) +
         static_cast<double>(numerator) / static_cast<double>(denominator);
}

order_mix mix_for_order(const load_mix& mix, std::uint64_t seed, std::size_t n) noexcept {
  order_mix m;
  m.double_order = draw(seed, n, 0) < mix.double_order;
  m.pay = draw(seed, n, 1) < mix.pay;
  m.double_pay = m.pay && draw(seed, n, 2) < mix.double_pay;
  m.cancel = draw(seed, n, 3) < mix.cancel;
  return m;
}

mix_counts count_mix(const load_mix& mix, std::uint64_t seed, std::size_t orders) {
  mix_counts c;
  for (std::size_t n = 0; n < orders; ++n) {
    const order_mix m = mix_for_order(mix, seed, n);
    ++c.creates;
    c.double_orders += m.double_order ? 1 : 0;
    c.payments += m.pay ? 1 : 0;
    c.double_payments += m.double_pay ? 1 : 0;
    c.cancels += m.cancel ? 1 : 0;
  }
  return c;
}

std::variant<load_mix, std::string> parse_load_mix(std::string_view text) {
  if (text.empty()) return std::string("empty (e.g. pay=0.8,cancel=0.2)");
  load_mix mix;
  std::set<std::string_view> seen;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view part = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto eq = part.find('=');
    // Built with append(): GCC 12 at -O3 warns falsely (-Wrestrict, PR 105329) about a literal
    // prepended to a temporary string.
    if (eq == std::string_view::npos) {
      return std::string("'").append(part).append("' is not name=number");
    }
    const std::string_view name = part.substr(0, eq);
    const std::string_view number = part.substr(eq + 1);
    const mix_field* field = nullptr;
    for (const auto& f : fields)
      if (f.name == name) field = &f;
    if (!field) {
      return "unknown name '" + std::string(name) + "' (pay, cancel, double-pay, double-order)";
    }
    if (!seen.insert(field->name).second) return std::string(name) + " given twice";
    const auto value = parse_share(number);
    if (!value) {
      return std::string(name) + ": '" + std::string(number) + "' is not a number from 0 to 1";
    }
    mix.*(field->value) = *value;
  }
  return mix;
}

std::string to_string(const load_mix& mix) {
  std::string out;
  for (const auto& f : fields) {
    std::array<char, 32> buf{};
    const auto [ptr, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), mix.*(f.value));
    if (!out.empty()) out += ',';
    out +=
        std::string(f.name) + "=" + std::string(buf.data(), ec == std::errc{} ? ptr : buf.data());
  }
  return out;
}

}  // namespace idem::cli
