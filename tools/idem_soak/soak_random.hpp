#pragma once
// The soak's seeded randomness: one stream per purpose (fault rules, kills, down times), each
// a pure function of (seed, stream), so that a seed replays the same schedule on any platform
// (the standard distributions are not the same across standard libraries).

#include <cstdint>

namespace idem::soak {

/// splitmix64 (Vigna): small, fast, and well mixed for seeding and drawing. Not thread-safe.
class soak_random {
 public:
  soak_random(std::uint64_t seed, std::uint64_t stream) noexcept
      : state_(mix(seed) ^ mix(stream + 0x5851f42d4c957f2dULL)) {}

  [[nodiscard]] std::uint64_t next() noexcept {
    state_ += 0x9e3779b97f4a7c15ULL;
    return mix(state_);
  }
  /// Uniform in [0, 1).
  [[nodiscard]] double uniform() noexcept { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [lo, hi] (lo <= hi).
  [[nodiscard]] std::int64_t between(std::int64_t lo, std::int64_t hi) noexcept {
    const auto span = static_cast<std::uint64_t>(hi - lo) + 1;
    return lo + static_cast<std::int64_t>(next() % span);
  }

 private:
  static std::uint64_t mix(std::uint64_t x) noexcept {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }
  std::uint64_t state_;
};

/// The streams, one per purpose.
enum class soak_stream : std::uint64_t { faults = 1, client_kills, server_kills, down_time };

}  // namespace idem::soak
