#pragma once
/// @file
/// What client::async_resume takes and reports: a store's open intents (a journal left by a
/// process that was killed, interrupted or shut down) driven to an end, each under its own key.

#include <cstddef>
#include <functional>
#include <string>
#include <system_error>
#include <vector>

#include "idem/intent.hpp"
#include "idem/outcome.hpp"
#include "idem/submit_options.hpp"

namespace idem {

/// How to resume.
struct resume_options {
  /// Intents in flight at once (at least 1).
  std::size_t concurrency = 16;
  /// Open intents written down under another principal (another user or token, see
  /// client::principal) are never sent by this client. false (the default): if there is any,
  /// nothing is resumed and the summary's error is errc::foreign_credentials (a token mix-up is
  /// more likely than a shared device). true: this client's own are resumed, the others left
  /// open and untouched, counted in `foreign` (an app whose users share a device).
  bool skip_foreign = false;
  /// Each resumed intent's deadline and headers (a fresh deadline: default, the client's).
  submit_options submit{};
  /// Called with each intent just before it is submitted; returns what to submit. It may give
  /// another lookup or path (e.g. a backend that moved); it must keep the key and the payload.
  std::function<intent(const intent&)> adjust{};
  /// Called with each outcome as it arrives (on the client's executor), e.g. for progress.
  std::function<void(const outcome&)> on_outcome{};
};

/// What a resume did. Every open intent of this client's is counted exactly once: in an outcome
/// kind, in `abandoned`, or in `not_started`.
struct resume_summary {
  /// Empty when the resume ran; errc::foreign_credentials when it refused to (nothing written
  /// or sent); errc::cancelled when it was cancelled (what was in flight still completed).
  std::error_code error{};
  std::size_t open = 0;     ///< open intents the store listed
  std::size_t foreign = 0;  ///< of them, another principal's: never touched
  std::size_t succeeded = 0;
  std::size_t rejected = 0;
  std::size_t not_sent = 0;
  std::size_t unresolved = 0;
  /// Planned intents (a payment of an order) whose prerequisite can never succeed (rejected,
  /// abandoned, unknown to the store, or succeeded without naming what it created): written down
  /// as abandoned, never sent.
  std::size_t abandoned = 0;
  /// Not submitted: the resume was cancelled first, or the plan's prerequisite ended unresolved
  /// or not sent (the plan stays open for the next resume).
  std::size_t not_started = 0;
  /// The outcome of every intent submitted, in the order they ended.
  std::vector<outcome> outcomes{};
  /// The keys of the intents that are still open in the store (unresolved, not sent, not
  /// started): what the next resume will try again.
  std::vector<std::string> still_open{};
};

}  // namespace idem
