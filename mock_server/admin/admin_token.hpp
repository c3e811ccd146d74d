#pragma once
// The admin token guards /_mock/*. It is compared in constant time, so that the time an answer
// takes does not reveal how many leading characters of a guess were right. It comes from a file
// (--admin-token-file), the environment (IDEM_MOCK_ADMIN_TOKEN) or the command line
// (--admin-token, which any local user reads in /proc/PID/cmdline).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace idem::mock {

/// True when `presented` is the admin token. Compares SHA-256 digests with CRYPTO_memcmp: the
/// time taken depends on neither token's content nor on where they differ.
[[nodiscard]] bool is_admin_token(std::string_view presented, std::string_view admin_token);

/// The environment variable that holds the admin token when no flag gives it.
inline constexpr const char* admin_token_variable = "IDEM_MOCK_ADMIN_TOKEN";

/// Largest admin token file read: a token, not a document.
inline constexpr std::size_t max_admin_token_file_size = 4096;

/// Reads the admin token from `path`: the file's one line, its line end ("\n" or "\r\n")
/// dropped. On success stores it in `token` and returns nullopt; otherwise returns why not
/// (cannot be read, is empty, holds more than one line or a space or control character, is
/// larger than max_admin_token_file_size), naming the file.
[[nodiscard]] std::optional<std::string> read_admin_token_file(const std::string& path,
                                                               std::string& token);

}  // namespace idem::mock
