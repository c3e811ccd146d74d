#pragma once
// What idem-cli's journal says at the end of a soak: every intent it holds, what kind of
// request it is, how it ended, and each of its runs (a submission that reported an outcome)
// with its start and end, for the deadline check.

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "idem/intent_store.hpp"

namespace idem::soak {

enum class intent_kind { create, pay, cancel, other };

[[nodiscard]] std::string_view to_string(intent_kind k) noexcept;

/// One submission of an intent that ended with an outcome: from its first step (path bound,
/// attempt, wait or lookup) to the outcome. A submission whose process was killed has no end
/// and no run.
struct run_window {
  wall_time start{};
  wall_time end{};
  [[nodiscard]] std::chrono::milliseconds length() const {
    return std::chrono::duration_cast<std::chrono::milliseconds>(end - start);
  }
};

struct journal_intent {
  std::string key;
  intent_kind kind = intent_kind::other;
  std::string merchant_order_id;  ///< create: from its body
  std::string order_id;           ///< pay and cancel: from its path, once bound ("" before)
  std::optional<std::string> depends_on;
  intent_state state = intent_state::open;
  int final_status = 0;
  std::string result_id;  ///< `id` of the answer that decided it (the created order, ...)
  std::string error;
  std::vector<run_window> runs;
};

struct journal_facts {
  std::vector<journal_intent> intents;  ///< in the order they were written down
};

/// The runs in `timeline` (one intent's, oldest first). `process_starts` are the times the
/// client processes that wrote the journal were started (each ends before the next starts):
/// a run starts at its first step after both the intent's previous outcome and the start of
/// the process that reported its outcome.
[[nodiscard]] std::vector<run_window> runs_of(const std::vector<timeline_entry>& timeline,
                                              const std::vector<wall_time>& process_starts);

/// Reads every intent of the journal at `path` (read-only; no process may be writing it).
/// Throws std::runtime_error if it cannot be read.
[[nodiscard]] journal_facts read_journal_facts(const std::string& path,
                                               const std::vector<wall_time>& process_starts);

}  // namespace idem::soak
