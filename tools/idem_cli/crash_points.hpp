#pragma once
// A test hook for the crash tests: IDEM_CLI_CRASH_AT=<point>:<n> makes idem-cli kill itself
// with SIGKILL at the n-th occurrence of a point, so a test can stop a real process exactly
// between two steps of the write-ahead protocol. Unset (the normal case), nothing happens.
//   planned        the load's whole plan is durable, nothing sent yet (n is ignored)
//   before-send    the n-th attempt's start is recorded (durable, or read back as maybe sent
//                  after the kill); its request has not left
//   in-flight      the n-th attempt's request is on its way (killed 200 ms after it started)
//   after-response the n-th attempt's answer arrived; it is not yet written down
//   waiting        the n-th wait (backoff, Retry-After, budget) is written, not committed
//   after-lookup   the n-th lookup's answer is written, not committed
//   after-outcome  the n-th intent's outcome is written, not committed (the journal commits it
//                  with its next commit: a waited write's, or deferred_commit_delay later)

#include <boost/asio/any_io_executor.hpp>
#include <memory>
#include <string>

#include "idem/observer.hpp"

namespace idem::cli {

/// The crash point named by IDEM_CLI_CRASH_AT, or nullptr when unset or unparsable.
/// `ex` runs the in-flight timer.
[[nodiscard]] std::shared_ptr<observer> crash_observer_from_env(boost::asio::any_io_executor ex);

/// Kills the process now if IDEM_CLI_CRASH_AT names `point`.
void crash_if_asked(const std::string& point);

}  // namespace idem::cli
