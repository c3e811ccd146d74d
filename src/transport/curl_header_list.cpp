#include "transport/curl_header_list.hpp"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <new>
#include <string_view>

#include "idem/transport_error.hpp"
#include "util/http_facts.hpp"

namespace idem::detail {
namespace {

// What may not appear in a header name: ':' or blanks would make curl read it as something
// else, and CR, LF or NUL would end the line (a NUL ends it early: curl would send the rest as
// a line of its own).
constexpr auto bad_in_name = [] {
  std::array<bool, 256> bad{};
  for (const unsigned char c : {':', '\r', '\n', ' ', '\t', '\0'})
    bad[c] = true;
  return bad;
}();

// Whether any byte of `w` is zero. Exact as a yes or no: a byte's top bit can be set in the
// result without that byte being zero only through a borrow, and a borrow starts at a zero byte.
constexpr bool has_zero_byte(std::uint64_t w) noexcept {
  return ((w - 0x0101010101010101ULL) & ~w & 0x8080808080808080ULL) != 0;
}

// Whether `value` has a CR, LF or NUL, eight bytes at a time (values are the long part, a key
// or a token: one memchr call per byte sought cost more than the scan itself).
bool ends_a_line(std::string_view value) noexcept {
  constexpr std::uint64_t cr = 0x0d0d0d0d0d0d0d0dULL;
  constexpr std::uint64_t lf = 0x0a0a0a0a0a0a0a0aULL;
  const auto in_word = [](std::uint64_t w) {
    return has_zero_byte(w) || has_zero_byte(w ^ cr) || has_zero_byte(w ^ lf);
  };
  const char* p = value.data();
  std::size_t left = value.size();
  for (; left >= 8; p += 8, left -= 8) {
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if (in_word(w)) return true;
  }
  if (left == 0) return false;
  if (value.size() >= 8) {
    // The rest as the value's last eight bytes (some of them checked already).
    std::uint64_t w;
    std::memcpy(&w, value.data() + value.size() - 8, 8);
    return in_word(w);
  }
  for (; left > 0; ++p, --left) {
    if (*p == '\r' || *p == '\n' || *p == '\0') return true;
  }
  return false;
}

// A header that would let a caller's string end the line and start another (header injection),
// or that curl would read as something else.
bool is_valid_header(std::string_view name, std::string_view value) noexcept {
  if (name.empty() || std::ranges::any_of(name, [](char c) {
        return bad_in_name[static_cast<unsigned char>(c)];
      })) {
    return false;
  }
  return !ends_a_line(value);
}

}  // namespace

std::error_code curl_header_list::assign(const header_list& headers, std::string_view user_agent,
                                         std::optional<std::size_t> posted_bytes) {
  storage_.reset();
  first_ = nullptr;
  static constexpr std::string_view user_agent_name = "User-Agent";
  // One pass: every field checked and measured, and which of the three fields this list may
  // add the request has of its own.
  std::size_t text = 0;
  bool has_user_agent = false;
  bool has_expect = false;
  bool has_content_type = false;
  for (const auto& [name, value] : headers) {
    if (!is_valid_header(name, value)) return transport_errc::invalid_request;
    text += name.size() + value.size() + 3;  // ": " (or ";") and the NUL
    has_user_agent = has_user_agent || ascii_iequals(name, user_agent_name);
    has_expect = has_expect || ascii_iequals(name, "Expect");
    has_content_type = has_content_type || ascii_iequals(name, "Content-Type");
  }
  // The request's own User-Agent replaces the transport's.
  const bool add_user_agent = !user_agent.empty() && !has_user_agent;
  if (add_user_agent) {
    if (!is_valid_header(user_agent_name, user_agent)) return transport_errc::invalid_request;
    text += user_agent_name.size() + user_agent.size() + 3;
  }
  // "Expect: 100-continue" would add a round trip and a second place where the request can be
  // half-sent; an empty value removes the header curl would add. curl adds it only to a body
  // past a threshold, 1 MiB since 7.69 and 1,024 bytes before: below that, the line is one more
  // that curl reads on every request for nothing.
  constexpr std::size_t expect_threshold = 1024;
  const bool remove_expect = posted_bytes && *posted_bytes > expect_threshold && !has_expect;
  // curl labels a POST body application/x-www-form-urlencoded unless told otherwise; a
  // transport must not invent a media type. A request without a body gets no label.
  const bool remove_content_type = posted_bytes && !has_content_type;
  static constexpr std::string_view expect_line = "Expect:";
  static constexpr std::string_view content_type_line = "Content-Type:";
  const std::size_t count = headers.size() + (add_user_agent ? 1 : 0) + (remove_expect ? 1 : 0) +
                            (remove_content_type ? 1 : 0);
  if (count == 0) return {};
  text += expect_line.size() + content_type_line.size() + 2;
  storage_ = std::make_unique_for_overwrite<std::byte[]>(count * sizeof(curl_slist) + text);
  auto* nodes = reinterpret_cast<curl_slist*>(storage_.get());
  char* out = reinterpret_cast<char*>(nodes + count);
  std::size_t n = 0;
  auto add_line = [&](std::initializer_list<std::string_view> parts) {
    new (&nodes[n]) curl_slist{out, n + 1 < count ? &nodes[n + 1] : nullptr};
    ++n;
    for (const std::string_view part : parts) {
      std::memcpy(out, part.data(), part.size());
      out += part.size();
    }
    *out++ = '\0';
  };
  for (const auto& [name, value] : headers) {
    // "Name;" is curl's spelling of a header with an empty value ("Name:" would remove it).
    if (value.empty()) {
      add_line({name, ";"});
    } else {
      add_line({name, ": ", value});
    }
  }
  if (add_user_agent) add_line({user_agent_name, ": ", user_agent});
  if (remove_expect) add_line({expect_line});
  if (remove_content_type) add_line({content_type_line});
  first_ = nodes;
  return {};
}

}  // namespace idem::detail
