#pragma once
// Internal: std::filesystem paths from and to the UTF-8 strings the SDK is given. A path made
// from a std::string, and path::string(), use the narrow encoding of the system: bytes as they
// are on POSIX, but the ANSI code page on Windows, where a UTF-8 name outside it would be
// garbled. Through char8_t both are UTF-8 everywhere (the same bytes as before on POSIX).

#include <filesystem>
#include <string>

namespace idem::detail {

/// `utf8` as a path.
[[nodiscard]] std::filesystem::path path_from_utf8(const std::string& utf8);

/// `path` as UTF-8.
[[nodiscard]] std::string utf8_of(const std::filesystem::path& path);

}  // namespace idem::detail
