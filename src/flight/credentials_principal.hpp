#pragma once
// The principal an intent's key belongs to, from the client's credentials (private to the idem
// library): the app's stable id when it gives one, else a SHA-256 fingerprint of the
// credentials, so that the store keeps whose key it is without ever holding the secret.

#include <string>
#include <string_view>

#include "idem/client.hpp"

namespace idem::detail {

/// "id:<principal_id>", or the fingerprint of the credentials as they are now (for a provider:
/// of the value it gives now); with a `key_header` other than Idempotency-Key, that header's
/// name too (with_key_header). Throws std::runtime_error when SHA-256 is unavailable.
[[nodiscard]] std::string principal_of(const credentials& c, std::string_view key_header);

/// `principal` as the owner of keys sent in `key_header`: unchanged for Idempotency-Key (so
/// journals written before still resume), else with ";key-header=<name in lower case>". A key
/// sent in another header than the first time is no key to the server: a request that may have
/// executed would execute again, so such an intent counts as another principal's.
[[nodiscard]] std::string with_key_header(std::string principal, std::string_view key_header);

/// The fingerprint of `c` sent with `value` as its secret.
[[nodiscard]] std::string fingerprint_of(const credentials& c, std::string_view value);

/// A provider without a principal id is fingerprinted by its value: true when `value` (what it
/// gives now) belongs to another principal than `principal`, so that a key must not be sent
/// under it. Always false for fixed credentials or a provider with a principal id.
[[nodiscard]] bool of_another_principal(const credentials& c, std::string_view value,
                                        std::string_view key_header, const std::string& principal);

}  // namespace idem::detail
