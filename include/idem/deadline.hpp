#pragma once
/// @file
/// One overall deadline per intent on a monotonic clock. Every attempt timeout and every sleep is
/// trimmed to what is left; a slice is reserved for the lookup by business ID; an attempt starts
/// only if a useful minimum is left after that reserve.

#include <chrono>

namespace idem {

struct deadline_policy {
  std::chrono::milliseconds total{30'000};  ///< the whole intent, lookup included
  /// Kept back for the lookup, and scaled down for a short deadline: the writes always get at
  /// least the smaller of `lookup_reserve` and nine tenths of `total`.
  /// So a deadline of 3 s keeps a tenth (300 ms) for the lookup, one from 3.33 s to 6 s gives
  /// the writes 3 s and the lookup the rest, and from 6 s on (the default 30 s) the reserve is
  /// kept whole.
  std::chrono::milliseconds lookup_reserve{3'000};
  std::chrono::milliseconds min_attempt{100};         ///< shortest attempt worth starting
  std::chrono::milliseconds attempt_timeout{10'000};  ///< cap for one attempt
};

}  // namespace idem
