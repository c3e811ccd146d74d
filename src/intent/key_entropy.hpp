#pragma once
// Random bytes for idempotency keys: OpenSSL's CSPRNG, drawn 4 KiB at a time.
//
// One RAND_bytes call costs about the same for 16 bytes as for 4 KiB (its DRBG takes a lock and
// checks for a fork on every call: about 1.8 µs here, 2.3 µs for 4 KiB), which made minting a key
// the largest single cost of creating an intent. Each thread keeps its own buffer, so no lock is
// taken; a process forked from this one never hands out bytes its parent also holds (a fork handler
// invalidates every buffer in the child, which then draws afresh). The bytes become keys that are
// sent in the clear, so keeping the next few in memory reveals nothing that the wire will not.

#include <cstddef>
#include <span>

namespace idem::detail {

/// Fills `out` (at most 4 KiB at a time) with bytes from OpenSSL's CSPRNG; false if the
/// CSPRNG failed (nothing is handed out then).
[[nodiscard]] bool key_entropy(std::span<unsigned char> out) noexcept;

}  // namespace idem::detail
