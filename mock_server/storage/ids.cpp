#include "mock_server/storage/ids.hpp"

#include <openssl/rand.h>

#include <array>
#include <stdexcept>

namespace idem::mock {

std::string random_id(std::string_view prefix) {
  std::array<unsigned char, 12> bytes{};  // 96 bits: collisions are out of reach in practice
  if (RAND_bytes(bytes.data(), static_cast<int>(bytes.size())) != 1) {
    throw std::runtime_error("random_id: RAND_bytes failed");
  }
  static constexpr char hex_digits[] = "0123456789abcdef";
  std::string id;
  id.reserve(prefix.size() + 1 + 2 * bytes.size());
  id.append(prefix).push_back('_');
  for (unsigned char b : bytes) {
    id.push_back(hex_digits[b >> 4]);
    id.push_back(hex_digits[b & 0x0F]);
  }
  return id;
}

}  // namespace idem::mock
