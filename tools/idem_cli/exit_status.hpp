#pragma once
// idem-cli's exit status (contract section 9), from how its intents ended.

#include <cstdint>

#include "idem/outcome.hpp"

namespace idem::cli {

inline constexpr int exit_all_succeeded = 0;
inline constexpr int exit_some_rejected = 1;  ///< some rejected, none left open
inline constexpr int exit_usage = 2;          ///< bad flag, foreign token for a journal
inline constexpr int exit_some_open = 3;      ///< some unresolved or not sent
/// Not in the contract's list, which reserves 2 for usage errors: the command line was fine but
/// the command could not start (setup threw, e.g. curl or OpenSSL failed to initialise), so no
/// intent was created and there is nothing to resume.
inline constexpr int exit_setup_failed = 4;

// `idem-cli conform` (docs/BACKEND_READINESS.md) judges a backend, not intents; 2 and 4 mean
// what they mean for every command. Skipped checks and warnings never change its status.
inline constexpr int exit_conform_clean = 0;   ///< nothing found that breaks exactly-once
inline constexpr int exit_conform_broken = 1;  ///< some check failed: the backend breaks it
/// No check failed, but some could not be completed (no answer, or an answer that made the
/// check meaningless): the backend is not shown to be safe.
inline constexpr int exit_conform_inconclusive = 3;

/// How many intents ended which way.
struct outcome_counts {
  std::uint64_t succeeded = 0;
  std::uint64_t rejected = 0;
  std::uint64_t not_sent = 0;
  std::uint64_t unresolved = 0;
};

/// Counts one more intent that ended as `kind`.
void add(outcome_counts& counts, outcome_kind kind) noexcept;

/// 3 if any intent is left open (unresolved or not sent), else 1 if any was rejected, else 0.
/// Open wins over rejected: an open intent still needs someone to resume it.
[[nodiscard]] int exit_status_for(const outcome_counts& counts) noexcept;
/// The same for a run of `intents` intents: any intent not counted at all is left open (3), so
/// a run that ended early never passes for "every intent succeeded".
[[nodiscard]] int exit_status_for(const outcome_counts& counts, std::uint64_t intents) noexcept;

}  // namespace idem::cli
