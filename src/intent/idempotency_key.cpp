#include "idem/idempotency_key.hpp"

#include <array>
#include <cstdint>
#include <system_error>

#include "intent/key_entropy.hpp"

namespace idem {
namespace {

using uuid_bytes = std::array<unsigned char, 16>;

uuid_bytes random_bytes() {
  uuid_bytes b{};
  if (!detail::key_entropy(b)) {
    throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                            "OpenSSL RAND_bytes failed to mint an idempotency key");
  }
  return b;
}

// Stamps the version nibble and the RFC 9562 variant bits (10xx).
void stamp(uuid_bytes& b, unsigned version) {
  b[6] = static_cast<unsigned char>((b[6] & 0x0F) | (version << 4));
  b[8] = static_cast<unsigned char>((b[8] & 0x3F) | 0x80);
}

std::string format(const uuid_bytes& b) {
  static constexpr char hex[] = "0123456789abcdef";
  // 8-4-4-4-12 hex digits: written in place, not pushed back one by one (this runs for every
  // intent).
  std::string out(36, '-');
  char* p = out.data();
  for (std::size_t i = 0; i < b.size(); ++i) {
    if (i == 4 || i == 6 || i == 8 || i == 10) ++p;  // over a '-'
    *p++ = hex[b[i] >> 4];
    *p++ = hex[b[i] & 0x0F];
  }
  return out;
}

}  // namespace

idempotency_key idempotency_key::mint(key_format format_kind) {
  if (format_kind == key_format::uuid_v7) return mint_v7(std::chrono::system_clock::now());
  auto b = random_bytes();
  stamp(b, 4);
  return idempotency_key{format(b)};
}

idempotency_key idempotency_key::mint_v7(std::chrono::system_clock::time_point now) {
  auto b = random_bytes();
  auto ms = static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count());
  for (int i = 0; i < 6; ++i) {
    b[static_cast<std::size_t>(i)] = static_cast<unsigned char>(ms >> (8 * (5 - i)));
  }
  stamp(b, 7);
  return idempotency_key{format(b)};
}

std::optional<idempotency_key> idempotency_key::from_string(std::string_view text) {
  if (text.empty() || text.size() > 255) return std::nullopt;
  for (char c : text) {
    if (c < 0x21 || c > 0x7E) return std::nullopt;
  }
  return idempotency_key{std::string{text}};
}

}  // namespace idem
