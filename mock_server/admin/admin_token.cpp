#include "mock_server/admin/admin_token.hpp"

#include <openssl/crypto.h>
#include <openssl/sha.h>

#include <array>

namespace idem::mock {

namespace {

using digest = std::array<unsigned char, SHA256_DIGEST_LENGTH>;

digest sha256(std::string_view data) {
  digest out{};
  SHA256(reinterpret_cast<const unsigned char*>(data.data()), data.size(), out.data());
  return out;
}

}  // namespace

bool is_admin_token(std::string_view presented, std::string_view admin_token) {
  // Digests have one length whatever the tokens' lengths, so the comparison leaks neither.
  const auto a = sha256(presented);
  const auto b = sha256(admin_token);
  return !admin_token.empty() && CRYPTO_memcmp(a.data(), b.data(), a.size()) == 0;
}

}  // namespace idem::mock
