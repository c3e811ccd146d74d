#include "util/hashed_key.hpp"

#include <cstdint>
#include <cstring>

namespace idem::detail {
namespace {

// The 64-bit finaliser of MurmurHash3: every input bit reaches every output bit.
std::uint64_t mix(std::uint64_t h) noexcept {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53ULL;
  h ^= h >> 33;
  return h;
}

}  // namespace

std::size_t hash_text(std::string_view text) noexcept {
  // The length goes in first, so that texts that differ only by trailing zero bytes differ.
  std::uint64_t h = 0x9e3779b97f4a7c15ULL ^ text.size();
  const char* p = text.data();
  std::size_t left = text.size();
  // Per word, a multiply spreads its low bits upwards and the shift brings the high ones back
  // down; the order of the words matters (each goes into what the ones before made).
  for (; left >= 8; p += 8, left -= 8) {
    std::uint64_t word;
    std::memcpy(&word, p, 8);
    h = (h ^ word) * 0xff51afd7ed558ccdULL;
    h ^= h >> 32;
  }
  // The last bytes: as the text's last eight (some hashed already) when it has eight, rather
  // than copied one by one.
  std::uint64_t tail = 0;
  if (left != 0 && text.size() >= 8) {
    std::memcpy(&tail, text.data() + text.size() - 8, 8);
  } else {
    std::memcpy(&tail, p, left);
  }
  return static_cast<std::size_t>(mix(h ^ tail));
}

}  // namespace idem::detail
