#pragma once
// Checks of flag values that need more than a number or duration parser: URLs (with libcurl's
// own URL parser, so that what passes here is what the transport will accept), header lines,
// JSON pointers and files. Each returns "" when the value is good, else what is wrong, in words
// that go after "idem-cli: " in a usage error.

#include <string>
#include <string_view>
#include <utility>

namespace idem::cli {

/// `url` is absolute, http:// or https://, has a host, no user or password (refused without
/// repeating the URL), and no query or fragment (paths are appended to it). Checked with
/// curl_url(), which needs no curl_global_init.
[[nodiscard]] std::string check_base_url(const std::string& flag, const std::string& url);

/// `--header 'Name: value'`: the name an RFC 9110 token, the value without CR, LF or other
/// control characters (a tab is fine), blanks around the value dropped. The names the CLI sets
/// itself (Authorization, and `key_header`: Idempotency-Key unless --key-header names another)
/// are refused: a second copy would contradict them. A refusal names the header but never
/// repeats its value (it may be a credential).
[[nodiscard]] std::string parse_header_flag(std::string_view text,
                                            std::pair<std::string, std::string>& out,
                                            std::string_view key_header = "Idempotency-Key");

/// `--key-header NAME`: an RFC 9110 token, not Authorization (--token sets it).
[[nodiscard]] std::string check_key_header(std::string_view name);

/// An RFC 6901 JSON pointer: "" (the whole document) or "/a/b", with `~` only as ~0 or ~1.
[[nodiscard]] std::string check_json_pointer(const std::string& flag, const std::string& pointer);

/// `path` names a regular file this process can read.
[[nodiscard]] std::string check_readable_file(const std::string& flag, const std::string& path);

}  // namespace idem::cli
