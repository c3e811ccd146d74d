#pragma once
/// @file
/// Idempotency keys: minted once per business intent from OpenSSL's CSPRNG, never derived from
/// user, order or product identifiers.

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace idem {

/// How a new key is formatted. Both are RFC 9562 UUIDs in lower-case 8-4-4-4-12 form.
enum class key_format {
  uuid_v4,  ///< 122 random bits (the default)
  uuid_v7,  ///< 48-bit Unix-millisecond timestamp + 74 random bits: sortable by creation time
};

/// An idempotency key: a value type, cheap to copy, compared by value.
/// Thread-safety: distinct objects may be used concurrently; const members are safe to share.
class idempotency_key {
 public:
  /// Mints a fresh key from OpenSSL's CSPRNG (RAND_bytes). Every call returns a new key.
  /// @throws std::system_error if the CSPRNG cannot produce bytes (not seen on a working system).
  [[nodiscard]] static idempotency_key mint(key_format format = key_format::uuid_v4);
  /// Mints a UUIDv7 with an explicit timestamp (for tests and journals replaying history).
  [[nodiscard]] static idempotency_key mint_v7(std::chrono::system_clock::time_point now);
  /// Accepts a previously minted key (e.g. read back from a journal): 1-255 visible ASCII
  /// characters (0x21-0x7E), as the wire contract allows. nullopt otherwise.
  [[nodiscard]] static std::optional<idempotency_key> from_string(std::string_view text);

  /// The key as sent in the `Idempotency-Key` header.
  [[nodiscard]] const std::string& str() const noexcept { return value_; }
  friend bool operator==(const idempotency_key&, const idempotency_key&) = default;

 private:
  explicit idempotency_key(std::string value) : value_(std::move(value)) {}
  std::string value_;
};

}  // namespace idem
