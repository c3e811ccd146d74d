#pragma once
// The principal an intent's key belongs to, from the client's credentials (private to the idem
// library): the app's stable id when it gives one, else a SHA-256 fingerprint of the
// credentials, so that the store keeps whose key it is without ever holding the secret.

#include <string>
#include <string_view>

#include "idem/client.hpp"

namespace idem::detail {

/// "id:<principal_id>", or the fingerprint of the credentials as they are now (for a provider:
/// of the value it gives now). Throws std::runtime_error when SHA-256 is unavailable.
[[nodiscard]] std::string principal_of(const credentials& c);

/// The fingerprint of `c` sent with `value` as its secret.
[[nodiscard]] std::string fingerprint_of(const credentials& c, std::string_view value);

/// A provider without a principal id is fingerprinted by its value: true when `value` (what it
/// gives now) belongs to another principal than `principal`, so that a key must not be sent
/// under it. Always false for fixed credentials or a provider with a principal id.
[[nodiscard]] bool of_another_principal(const credentials& c, std::string_view value,
                                        const std::string& principal);

}  // namespace idem::detail
