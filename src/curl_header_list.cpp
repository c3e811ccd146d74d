#include "curl_header_list.hpp"

#include <algorithm>
#include <string_view>

#include "http_facts.hpp"
#include "idem/transport_error.hpp"

namespace idem::detail {
namespace {

// A header that would let a caller's string end the line and start another (header injection),
// or that curl would read as something else (a name with ':' or blanks).
// One pass per string (find_first_of with a set looks each character up in the set: about
// 5,000 instructions for a request's headers, where this takes a few hundred).
bool is_valid_header(const std::pair<std::string, std::string>& h) noexcept {
  const auto& [name, value] = h;
  if (name.empty()) return false;
  for (const char c : name) {
    if (c == ':' || c == '\r' || c == '\n' || c == ' ' || c == '\t') return false;
  }
  for (const char c : value) {
    if (c == '\r' || c == '\n' || c == '\0') return false;
  }
  return true;
}

bool has_header(const header_list& headers, std::string_view name) noexcept {
  return std::ranges::any_of(headers, [&](const auto& h) { return ascii_iequals(h.first, name); });
}

}  // namespace

std::error_code curl_header_list::assign(const header_list& headers) {
  lines_.clear();
  nodes_.clear();
  std::size_t size = 0;
  for (const auto& h : headers) {
    if (!is_valid_header(h)) return transport_errc::invalid_request;
    size += h.first.size() + h.second.size() + 3;
  }
  // "Expect: 100-continue" would add a round trip and a second place where the request can be
  // half-sent; an empty value removes the header curl would add.
  const bool remove_expect = !has_header(headers, "Expect");
  // curl labels a POST body application/x-www-form-urlencoded unless told otherwise; a
  // transport must not invent a media type.
  const bool remove_content_type = !has_header(headers, "Content-Type");
  static constexpr std::string_view expect_line = "Expect:";
  static constexpr std::string_view content_type_line = "Content-Type:";
  lines_.reserve(size + expect_line.size() + content_type_line.size() + 2);
  std::size_t count = 0;
  auto end_line = [&] {
    lines_.push_back('\0');
    ++count;
  };
  for (const auto& [name, value] : headers) {
    lines_.append(name);
    // "Name;" is curl's spelling of a header with an empty value ("Name:" would remove it).
    if (value.empty()) {
      lines_.push_back(';');
    } else {
      lines_.append(": ").append(value);
    }
    end_line();
  }
  if (remove_expect) {
    lines_.append(expect_line);
    end_line();
  }
  if (remove_content_type) {
    lines_.append(content_type_line);
    end_line();
  }
  // Linked only now: `lines_` no longer moves.
  nodes_.resize(count);
  char* line = lines_.data();
  for (std::size_t n = 0; n < count; ++n) {
    nodes_[n].data = line;
    nodes_[n].next = n + 1 < count ? &nodes_[n + 1] : nullptr;
    line += std::char_traits<char>::length(line) + 1;
  }
  return {};
}

}  // namespace idem::detail
