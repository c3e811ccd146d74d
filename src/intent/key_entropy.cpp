#include "intent/key_entropy.hpp"

#include <openssl/rand.h>

#include <array>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <new>

#include "platform/process.hpp"

namespace idem::detail {
namespace {

// 4 KiB: one RAND_bytes call (about 2 us here, mostly fixed cost) per 256 keys. Allocated by
// the first key a thread mints, so a thread that never mints pays 8 bytes of thread storage.
constexpr std::size_t buffer_size = 4096;

// Bumped in the child of every fork: a buffer filled under another generation is stale.
std::atomic<std::uint64_t> fork_generation{0};

void bump_fork_generation() noexcept {
  fork_generation.fetch_add(1, std::memory_order_relaxed);
}

struct entropy_buffer {
  std::array<unsigned char, buffer_size> bytes{};
  std::size_t used = buffer_size;  // nothing left: the first call draws
  std::uint64_t generation = 0;
};

}  // namespace

bool key_entropy(std::span<unsigned char> out) noexcept {
  static std::once_flag registered;
  std::call_once(registered, [] { on_fork_child(&bump_fork_generation); });
  if (out.size() > buffer_size) return false;
  thread_local std::unique_ptr<entropy_buffer> owned;
  if (!owned) {
    owned.reset(new (std::nothrow) entropy_buffer);
    if (!owned) return RAND_bytes(out.data(), static_cast<int>(out.size())) == 1;
  }
  entropy_buffer& buf = *owned;
  const std::uint64_t generation = fork_generation.load(std::memory_order_relaxed);
  if (buf.generation != generation) {
    buf.used = buffer_size;  // filled before the fork: the parent hands out the same bytes
    buf.generation = generation;
  }
  if (buffer_size - buf.used < out.size()) {
    if (RAND_bytes(buf.bytes.data(), static_cast<int>(buf.bytes.size())) != 1) return false;
    buf.used = 0;
  }
  std::memcpy(out.data(), buf.bytes.data() + buf.used, out.size());
  // Handed-out bytes are not kept: the buffer never gives the same bytes twice.
  std::memset(buf.bytes.data() + buf.used, 0, out.size());
  buf.used += out.size();
  return true;
}

}  // namespace idem::detail
