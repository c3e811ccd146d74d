#include "mock_server/http/http_message.hpp"

#include <algorithm>
#include <cctype>

namespace idem::mock {

bool iequals(std::string_view a, std::string_view b) noexcept {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

namespace {
std::optional<std::string_view> find_header(const header_list& headers, std::string_view name) {
  for (const auto& [k, v] : headers) {
    if (iequals(k, name)) return std::string_view{v};
  }
  return std::nullopt;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  for (std::size_t i = 0; i < in.size(); ++i) {
    char c = in[i];
    if (c == '+') {
      out.push_back(' ');
    } else if (c == '%' && i + 2 < in.size() && hex_value(in[i + 1]) >= 0 &&
               hex_value(in[i + 2]) >= 0) {
      out.push_back(static_cast<char>(hex_value(in[i + 1]) * 16 + hex_value(in[i + 2])));
      i += 2;
    } else {
      out.push_back(c);
    }
  }
  return out;
}
}  // namespace

std::string_view request::path() const {
  std::string_view t{target};
  return t.substr(0, t.find('?'));
}

std::string_view request::query() const {
  std::string_view t{target};
  auto q = t.find('?');
  return q == std::string_view::npos ? std::string_view{} : t.substr(q + 1);
}

std::optional<std::string_view> request::header(std::string_view name) const {
  return find_header(headers, name);
}

std::size_t request::header_count(std::string_view name) const {
  return static_cast<std::size_t>(std::count_if(
      headers.begin(), headers.end(), [&](const auto& h) { return iequals(h.first, name); }));
}

std::optional<std::string_view> response::header(std::string_view name) const {
  return find_header(headers, name);
}

void response::set_header(std::string name, std::string value) {
  for (auto& [k, v] : headers) {
    if (iequals(k, name)) {
      v = std::move(value);
      return;
    }
  }
  headers.emplace_back(std::move(name), std::move(value));
}

std::optional<std::string> query_param(std::string_view query, std::string_view name) {
  while (!query.empty()) {
    auto amp = query.find('&');
    std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    auto eq = pair.find('=');
    std::string key = percent_decode(pair.substr(0, eq));
    if (key == name) {
      return eq == std::string_view::npos ? std::string{} : percent_decode(pair.substr(eq + 1));
    }
  }
  return std::nullopt;
}

}  // namespace idem::mock
