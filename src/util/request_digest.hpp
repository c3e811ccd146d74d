#pragma once
// A 64-bit digest of a request (method, path and exact body bytes), for a store that forgets an
// intent's request but must still tell the same request from another under its key (private
// to the idem library). FNV-1a: stable, cheap, not a security boundary (the key is).

#include <cstdint>
#include <string_view>

namespace idem::detail {

[[nodiscard]] constexpr std::uint64_t request_digest(std::string_view method, std::string_view path,
                                                     std::string_view body) noexcept {
  std::uint64_t h = 14695981039346656037ull;
  auto byte = [&h](unsigned char c) {
    h ^= c;
    h *= 1099511628211ull;
  };
  // Each part's length first, so that bytes moved from one part to the next change the digest.
  auto mix = [&byte](std::string_view part) {
    for (std::uint64_t n = part.size(), k = 0; k < 8; ++k, n >>= 8)
      byte(static_cast<unsigned char>(n & 0xff));
    for (const char c : part)
      byte(static_cast<unsigned char>(c));
  };
  mix(method);
  mix(path);
  mix(body);
  return h;
}

}  // namespace idem::detail
