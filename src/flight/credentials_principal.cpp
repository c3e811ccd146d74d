#include "flight/credentials_principal.hpp"

#include <openssl/evp.h>

#include <cstdio>
#include <stdexcept>

namespace idem::detail {
namespace {

// Hex SHA-256 of `material`: the store keeps which credentials a key belongs to without ever
// holding the secret.
std::string sha256_hex(const std::string& material) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int size = 0;
  if (EVP_Digest(material.data(), material.size(), digest, &size, EVP_sha256(), nullptr) != 1) {
    throw std::runtime_error("idem: SHA-256 unavailable");
  }
  std::string hex;
  hex.reserve(size * 2);
  for (unsigned int n = 0; n < size; ++n) {
    char buf[3];
    std::snprintf(buf, sizeof buf, "%02x", digest[n]);
    hex += buf;
  }
  return hex;
}

}  // namespace

// A bearer token keeps the fingerprint it had before other credentials existed, so journals
// written then still resume.
std::string principal_of(const credentials& c, std::string_view key_header) {
  if (!c.principal_id.empty()) return with_key_header("id:" + c.principal_id, key_header);
  return with_key_header(fingerprint_of(c, c.provider ? c.provider() : c.value), key_header);
}

std::string with_key_header(std::string principal, std::string_view key_header) {
  std::string name(key_header);
  for (auto& ch : name)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  if (name == "idempotency-key") return principal;
  return principal + ";key-header=" + name;
}

std::string fingerprint_of(const credentials& c, std::string_view value) {
  constexpr std::string_view bearer = "Bearer ";
  if (c.header == "Authorization" && value.starts_with(bearer)) {
    return sha256_hex("bearer\n" + std::string(value.substr(bearer.size())));
  }
  return sha256_hex("header\n" + c.header + "\n" + std::string(value));
}

bool of_another_principal(const credentials& c, std::string_view value, std::string_view key_header,
                          const std::string& principal) {
  if (!c.provider || !c.principal_id.empty()) return false;
  return with_key_header(fingerprint_of(c, value), key_header) != principal;
}

}  // namespace idem::detail
