#include "curl_header_list.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <initializer_list>
#include <new>
#include <string_view>

#include "http_facts.hpp"
#include "idem/transport_error.hpp"

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

// A header that would let a caller's string end the line and start another (header injection),
// or that curl would read as something else. Values are the long part (a key, a token):
// memchr scans them many bytes at a time.
bool is_valid_header(std::string_view name, std::string_view value) noexcept {
  if (name.empty() || std::ranges::any_of(name, [](char c) {
        return bad_in_name[static_cast<unsigned char>(c)];
      })) {
    return false;
  }
  return std::ranges::none_of(std::string_view("\r\n\0", 3), [&](char c) {
    return std::memchr(value.data(), c, value.size()) != nullptr;
  });
}

}  // namespace

std::error_code curl_header_list::assign(const header_list& headers, std::string_view user_agent) {
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
  // half-sent; an empty value removes the header curl would add.
  const bool remove_expect = !has_expect;
  // curl labels a POST body application/x-www-form-urlencoded unless told otherwise; a
  // transport must not invent a media type.
  const bool remove_content_type = !has_content_type;
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
