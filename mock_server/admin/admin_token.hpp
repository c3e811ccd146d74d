#pragma once
// The admin token (--admin-token) guards /_mock/*. It is compared in constant time, so that the
// time an answer takes does not reveal how many leading characters of a guess were right.

#include <string_view>

namespace idem::mock {

/// True when `presented` is the admin token. Compares SHA-256 digests with CRYPTO_memcmp: the
/// time taken depends on neither token's content nor on where they differ.
[[nodiscard]] bool is_admin_token(std::string_view presented, std::string_view admin_token);

}  // namespace idem::mock
