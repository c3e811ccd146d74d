#include "mock_server/idempotency/fingerprint.hpp"

#include <openssl/evp.h>

#include <array>
#include <stdexcept>

#include "mock_server/http/canonical_json.hpp"

namespace idem::mock {

std::string sha256_hex(std::string_view data) {
  std::array<unsigned char, EVP_MAX_MD_SIZE> digest{};
  unsigned int length = 0;
  // EVP_Digest is the one-shot form of Init/Update/Final; it fails only on allocation failure
  // or a broken provider, which leaves no meaningful fingerprint to return.
  if (EVP_Digest(data.data(), data.size(), digest.data(), &length, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("sha256_hex: EVP_Digest failed");
  }
  static constexpr char hex_digits[] = "0123456789abcdef";
  std::string hex;
  hex.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    hex.push_back(hex_digits[digest[i] >> 4]);
    hex.push_back(hex_digits[digest[i] & 0x0F]);
  }
  return hex;
}

std::string request_fingerprint(std::string_view method, std::string_view path,
                                const nlohmann::json& body) {
  std::string material{method};
  material += '\n';
  material += path;
  material += '\n';
  material += canonical_json(body);
  return sha256_hex(material);
}

}  // namespace idem::mock
