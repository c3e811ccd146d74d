#include "idem_cli/command_line/flag_checks.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>

namespace idem::cli {
namespace {

// RFC 9110 section 5.6.2: tchar.
bool is_token_char(char c) noexcept {
  if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) return true;
  return std::string_view("!#$%&'*+-.^_`|~").find(c) != std::string_view::npos;
}

bool iequals(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t n = 0; n < a.size(); ++n) {
    const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c; };
    if (lower(a[n]) != lower(b[n])) return false;
  }
  return true;
}

std::string_view trim(std::string_view s) noexcept {
  const auto first = s.find_first_not_of(" \t");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

// One URL part, or "" when it is absent.
std::string url_part(CURLU* url, CURLUPart part) {
  char* value = nullptr;
  if (curl_url_get(url, part, &value, 0) != CURLUE_OK || value == nullptr) return {};
  std::string out = value;
  curl_free(value);
  return out;
}

}  // namespace

std::string check_base_url(const std::string& flag, const std::string& url) {
  const std::string bad = "bad " + flag + " '" + url + "': ";
  std::unique_ptr<CURLU, decltype(&curl_url_cleanup)> parsed(curl_url(), &curl_url_cleanup);
  if (!parsed) return bad + "out of memory";
  // Any scheme parses here, so that ftp:// is refused in our words rather than accepted.
  const CURLUcode rc =
      curl_url_set(parsed.get(), CURLUPART_URL, url.c_str(), CURLU_NON_SUPPORT_SCHEME);
  if (rc != CURLUE_OK) {
    return bad + curl_url_strerror(rc) + " (e.g. http://127.0.0.1:8080 or https://api.example)";
  }
  // Credentials in the URL would be printed wherever the URL is (every failure names it) and
  // never be sent (idem-cli authenticates with --token), so they are refused without an echo.
  if (!url_part(parsed.get(), CURLUPART_USER).empty() ||
      !url_part(parsed.get(), CURLUPART_PASSWORD).empty()) {
    return "bad " + flag + ": no user or password in the URL, please (idem-cli sends --token)";
  }
  std::string scheme = url_part(parsed.get(), CURLUPART_SCHEME);
  if (scheme != "http" && scheme != "https") {
    return bad + "only http:// and https:// are supported";
  }
  if (url_part(parsed.get(), CURLUPART_HOST).empty()) return bad + "no host";
  if (!url_part(parsed.get(), CURLUPART_QUERY).empty() ||
      !url_part(parsed.get(), CURLUPART_FRAGMENT).empty() ||
      url.find_first_of("?#") != std::string::npos) {
    return bad + "no query or fragment, please (paths are appended to it)";
  }
  return {};
}

std::string parse_header_flag(std::string_view text, std::pair<std::string, std::string>& out,
                              std::string_view key_header) {
  const auto colon = text.find(':');
  // A message shows the header's name only: its value may be a credential (Authorization,
  // X-Api-Key), and so may a text without a colon.
  const std::string bad = colon == std::string_view::npos
                              ? std::string("bad --header: ")
                              : "bad --header '" + std::string(text.substr(0, colon)) + ": ...': ";
  if (text.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
    return bad + "CR, LF and NUL are not allowed in a header";
  }
  if (colon == std::string_view::npos) return bad + "expected 'Name: value'";
  const std::string_view name = text.substr(0, colon);
  if (name.empty()) return bad + "the name is empty";
  for (char c : name) {
    if (!is_token_char(c)) return bad + "the name may hold letters, digits and !#$%&'*+-.^_`|~";
  }
  const std::string_view value = trim(text.substr(colon + 1));
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return bad + "control characters in the value";
  }
  for (std::string_view own : {std::string_view("Authorization"), key_header}) {
    if (iequals(name, own)) {
      return bad + "idem-cli sets " + std::string(own) +
             " itself (--token; the key is minted per intent)";
    }
  }
  out = {std::string(name), std::string(value)};
  return {};
}

std::string check_key_header(std::string_view name) {
  const std::string bad = "bad --key-header '" + std::string(name) + "': ";
  if (name.empty()) return bad + "the name is empty";
  if (!std::ranges::all_of(name, is_token_char)) {
    return bad + "the name may hold letters, digits and !#$%&'*+-.^_`|~";
  }
  if (iequals(name, "Authorization")) return bad + "--token sets Authorization";
  return {};
}

std::string check_json_pointer(const std::string& flag, const std::string& pointer) {
  try {
    (void)nlohmann::json::json_pointer(pointer);
    return {};
  } catch (const nlohmann::json::exception&) {
    return "bad " + flag + " '" + pointer + "': not a JSON pointer (e.g. /data or /items/0/sku)";
  }
}

std::string check_readable_file(const std::string& flag, const std::string& path) {
  const std::string bad = "bad " + flag + " '" + path + "': ";
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) return bad + "a directory, not a file";
  std::unique_ptr<std::FILE, decltype(&std::fclose)> file(std::fopen(path.c_str(), "rb"),
                                                          &std::fclose);
  if (!file) return bad + std::strerror(errno);
  return {};
}

}  // namespace idem::cli
